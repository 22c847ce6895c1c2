import assert from "node:assert/strict";
import { parseCliArgs } from "../../cli/args.ts";

Deno.test("parseCliArgs() parses every command", async (t) => {
  const cases: Array<[string[], unknown]> = [
    [["chat"], { name: "chat" }],
    [
      [
        "chat",
        "--agent",
        "a.yaml",
        "--model",
        "m",
        "--provider",
        "openai",
        "--fixture",
        "c.json",
        "--mode",
        "auto",
      ],
      {
        name: "chat",
        agent: "a.yaml",
        model: "m",
        provider: "openai",
        fixture: "c.json",
        mode: "auto",
      },
    ],
    [["chat-resume", "abc"], {
      name: "chat-resume",
      last: false,
      sessionId: "abc",
    }],
    [["chat-resume", "--last", "--fixture", "c.json"], {
      name: "chat-resume",
      last: true,
      fixture: "c.json",
    }],
    [["chat-list"], { name: "chat-list", here: false }],
    [["chat-list", "--here"], { name: "chat-list", here: true }],
    [["chat-show", "s1"], { name: "chat-show", sessionId: "s1" }],
    [["chat-delete", "s1"], {
      name: "chat-delete",
      sessionId: "s1",
      yes: false,
    }],
    [["chat-delete", "--yes", "s1"], {
      name: "chat-delete",
      sessionId: "s1",
      yes: true,
    }],
    [["chat-export", "s1"], {
      name: "chat-export",
      sessionId: "s1",
      force: false,
    }],
    [["chat-export", "s1", "--out", "w/x.yaml", "--force", "--json"], {
      name: "chat-export",
      sessionId: "s1",
      out: "w/x.yaml",
      force: true,
    }],
    [["agent", "run", "rev", "--fixture", "c.json"], {
      name: "agent-run",
      output: "text",
      agent: "rev",
      fixture: "c.json",
    }],
    [["agent", "run"], { name: "agent-run", output: "text" }],
    [["agent", "run", "What is 2+2?", "--output", "json"], {
      name: "agent-run",
      output: "json",
      prompt: "What is 2+2?",
    }],
    [["agent", "run", "a.agent.yaml", "hi"], {
      name: "agent-run",
      output: "text",
      agent: "a.agent.yaml",
      prompt: "hi",
    }],
    [["agent", "run", "reviewer"], {
      name: "agent-run",
      output: "text",
      agent: "reviewer",
    }],
    [["config", "path"], { name: "config-path" }],
    [["config", "show"], { name: "config-show" }],
    [["doctor"], { name: "doctor", permissions: false }],
    [["doctor", "--permissions"], { name: "doctor", permissions: true }],
    [["chat-show", "--", "-odd-id"], {
      name: "chat-show",
      sessionId: "-odd-id",
    }],
  ];
  for (const [argv, command] of cases) {
    await t.step(argv.join(" "), () => {
      const r = parseCliArgs(argv);
      assert.ok(r.ok && r.value.kind === "run", JSON.stringify(r));
      if (r.ok && r.value.kind === "run") {
        assert.deepEqual(r.value.command, command);
      }
    });
  }
});

Deno.test("parseCliArgs() accepts global flags anywhere", () => {
  const r = parseCliArgs([
    "--json",
    "chat-list",
    "--cwd",
    "/x",
    "-v",
    "--config=c.toml",
    "--no-color",
  ]);
  assert.ok(r.ok && r.value.kind === "run");
  if (r.ok && r.value.kind === "run") {
    assert.deepEqual(r.value.globals, {
      json: true,
      cwd: "/x",
      config: "c.toml",
      color: false,
      verbose: true,
      quiet: false,
    });
  }
  const last = parseCliArgs(["chat-list", "--no-color", "--color"]);
  assert.ok(
    last.ok && last.value.kind === "run" && last.value.globals.color === true,
  );
});

Deno.test("parseCliArgs() answers help and version before validating", async (t) => {
  const cases: Array<[string[], unknown]> = [
    [["--help"], { kind: "help", topic: "main" }],
    [["-h", "--json"], { kind: "help", topic: "main" }],
    [["chat", "--bogus", "-h"], { kind: "help", topic: "chat" }],
    [["agent", "run", "x", "--help"], { kind: "help", topic: "agent-run" }],
    [["config", "--help"], { kind: "help", topic: "config" }],
    [["nonsense", "--help"], { kind: "help", topic: "main" }],
    [["-V"], { kind: "version" }],
    [["chat-list", "--version", "--json"], { kind: "version" }],
  ];
  for (const [argv, want] of cases) {
    await t.step(argv.join(" "), () => {
      assert.deepEqual(parseCliArgs(argv), { ok: true, value: want });
    });
  }
});

Deno.test("parseCliArgs() refuses bad input with a usage error", async (t) => {
  const cases: Array<[string[], RegExp]> = [
    [[], /Missing command/],
    [["bogus"], /Unknown command: bogus/],
    [["chat", "--bogus"], /Unknown option: --bogus/],
    [["chat", "--no-json"], /Unknown option: --no-json/],
    [["chat-list", "--model", "m"], /--model is not valid for chat-list/],
    [["chat-list", "extra"], /Unexpected argument/],
    [["chat", "-v", "-q"], /-v and -q/],
    [["chat", "--mode", "yolo"], /Invalid --mode/],
    [["chat", "--cwd"], /Missing value for --cwd/],
    [["chat", "--json=1"], /does not take a value/],
    [["chat", "--provider", "openai"], /--provider needs --model/],
    [["chat-resume"], /needs a session id or --last/],
    [["chat-resume", "a", "--last"], /not both/],
    [["chat-show"], /needs a session id/],
    [["chat-delete", "a", "b"], /Unexpected argument/],
    [["agent"], /needs a subcommand: run/],
    [["agent", "walk", "x"], /Unknown agent subcommand/],
    [["agent", "run", "a", "b", "c"], /Unexpected argument for agent run: c/],
    [["agent", "run", "a", " "], /Empty prompt/],
    [["agent", "run", "hi there", "--output", "xml"], /Invalid --output/],
    [["agent", "run", "x", "--output", "json", "--json"], /cannot be combined/],
    [["chat", "--output", "json"], /--output is not valid for chat/],
    [["agent", "run", "x", "--input", "k=v"], /--input is reserved/],
    [["config"], /path or show/],
    [["config", "set", "x"], /Unknown config subcommand: set/],
    [["doctor", "--deep"], /Unknown option: --deep/],
    [["chat", "--agent", ""], /Missing value for --agent/],
    [["chat-export"], /chat-export needs a session id/],
    [["chat-export", "a", "b"], /Unexpected argument for chat-export: b/],
    [["chat-export", "a", "--out", ""], /Missing value for --out/],
    [["chat-export", "a", "--yes"], /--yes is not valid for chat-export/],
    [["chat", "--force"], /--force is not valid for chat/],
  ];
  for (const [argv, message] of cases) {
    await t.step(argv.join(" ") || "(empty)", () => {
      const r = parseCliArgs(argv);
      assert.equal(r.ok, false);
      if (!r.ok) {
        assert.equal(r.error.code, "usage");
        assert.match(r.error.message, message);
      }
    });
  }
});

Deno.test("parseCliArgs() remembers --json for a usage error", () => {
  const r = parseCliArgs(["chat", "--bogus", "--json"]);
  assert.ok(!r.ok && r.error.json);
  const after = parseCliArgs(["chat-show", "--", "--json"]);
  assert.ok(
    after.ok && after.value.kind === "run" && !after.value.globals.json,
  );
});
