/**
 * Regression harness for `chat` and `chat-resume`, driven
 * in-process through `main(argv, io)` with cassettes and temp stores.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { createBufferedIo } from "../../../cli/io/io.ts";
import { main } from "../../../cli/main.ts";
import type { SessionEvent } from "../../../schema/event.ts";
import { openSqliteStore } from "../../../store/sqlite_store.ts";
import {
  parseEvents,
  runCli,
  signature as eventSignature,
  tempDir,
  textCassette,
  write,
} from "../_helpers.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** Strict NDJSON (see `parseEvents`), as loose records for field checks. */
function events(stdout: string): Array<Record<string, unknown>> {
  return parseEvents(stdout) as unknown as Array<Record<string, unknown>>;
}

function signature(list: Array<Record<string, unknown>>): string[] {
  return eventSignature(list as unknown as SessionEvent[]);
}

Deno.test("chat: plain text turn streams model text to stdout, exit 0 on EOF", async () => {
  await using dir = await tempDir();
  await write(
    `${dir.path}/c.json`,
    textCassette("anthropic", ["Hello \x1b[31mthere."]),
  );
  const r = await runCli(["chat", "--fixture", "c.json", "-q"], {
    env: { RELAVIUM_HOME: `${dir.path}/home` },
    cwd: dir.path,
    stdin: "hi\n",
  });
  assert.equal(r.code, 0);
  assert.equal(r.stdout, "Hello there.\n");
  assert.equal(r.stderr, "");
});

Deno.test("chat --json: pure NDJSON, gap-free, session:cancelled last, empty stderr", async () => {
  await using dir = await tempDir();
  await write(
    `${dir.path}/c.json`,
    textCassette("anthropic", ["One.", "Two."]),
  );
  const r = await runCli(["--json", "chat", "--fixture", "c.json"], {
    env: { RELAVIUM_HOME: `${dir.path}/home` },
    cwd: dir.path,
    stdin: "first\n\n   \nsecond",
  });
  assert.equal(r.code, 0);
  assert.equal(r.stderr, "");
  const list = events(r.stdout);
  assert.equal(list[0]?.sequenceNumber, 0);
  assert.deepEqual(signature(list), [
    "session:started",
    "session:turn_started",
    "agent:token",
    "cost:updated",
    "session:turn_completed",
    "session:turn_started",
    "agent:token",
    "cost:updated",
    "session:turn_completed",
    "session:cancelled",
  ]);
  assert.deepEqual(
    (list[0]?.context as Record<string, unknown>).workingDir,
    dir.path,
  );
  const id = list[0]?.sessionId as string;
  const store = openSqliteStore(`${dir.path}/home/history.db`, {
    clock: { now: () => 0 },
    ids: () => crypto.randomUUID(),
  });
  try {
    const loaded = store.load(id);
    assert.equal(loaded?.messages.length, 4);
    assert.equal(loaded?.record.status, "ended");
    assert.equal(loaded?.record.title, "first");
  } finally {
    store.close();
  }
});

Deno.test("chat --json: slash commands answer on stderr, stdout stays events", async () => {
  await using dir = await tempDir();
  await write(`${dir.path}/c.json`, textCassette("anthropic", ["Ok."]));
  const r = await runCli(["chat", "--json", "--fixture", "c.json"], {
    env: { RELAVIUM_HOME: `${dir.path}/home` },
    cwd: dir.path,
    stdin:
      "/help\n/mode auto\n/frob\nhi\n/cost\n@file is literal\n/exit\nnever sent\n",
  });
  assert.equal(
    r.code,
    1,
    "the @ line needs a second recorded call: a cassette fault",
  );
  assert.match(r.stderr, /\/mode \[mode\]/);
  assert.match(r.stderr, /Mode: auto \(from the next turn\)/);
  assert.match(r.stderr, /Unknown command \/frob \(try \/help\)/);
  assert.match(r.stderr, /Cost: \$0\.\d+ \(10 input, 2 output tokens\)/);
  assert.match(r.stderr, /unexpected stream call #2 \(only 1 recorded\)/);
  const sig = signature(events(r.stdout));
  assert.equal(sig.filter((s) => s === "session:turn_started").length, 2);
  assert.equal(sig.at(-1), "session:cancelled");
});

Deno.test("chat: a malformed or mismatched cassette is exit 2 before anything is stored", async (t) => {
  const cases: Array<[string, string, RegExp]> = [
    ["bad JSON", "{", /invalid JSON/],
    [
      "unknown version",
      JSON.stringify({ schema_version: "9", provider: "anthropic", calls: [] }),
      /schema_version/,
    ],
    [
      "unknown chunk",
      JSON.stringify({
        schema_version: "1.0",
        provider: "anthropic",
        calls: [[{ type: "nope" }]],
      }),
      /calls\[0\]\[0\]\.type: unknown chunk type/,
    ],
    [
      "wrong provider",
      textCassette("openai", ["x"]),
      /provider: must equal the agent's primary provider "anthropic"/,
    ],
  ];
  for (const [name, text, message] of cases) {
    await t.step(name, async () => {
      await using dir = await tempDir();
      await write(`${dir.path}/c.json`, text);
      const r = await runCli(["chat", "--json", "--fixture", "c.json"], {
        env: { RELAVIUM_HOME: `${dir.path}/home` },
        cwd: dir.path,
        stdin: "hi\n",
      });
      assert.equal(r.code, 2);
      assert.equal(r.stdout, "");
      const e = JSON.parse(r.stderr);
      assert.equal(e.code, "invalid_cassette");
      assert.match(e.message, message);
      assert.ok(e.message.includes(`${dir.path}/c.json`), "file-attributed");
      await assert.rejects(
        () => Deno.stat(`${dir.path}/home/history.db`),
        Deno.errors.NotFound,
      );
    });
  }
});

Deno.test("chat: bad invocations exit 2 with nothing stored", async (t) => {
  const cases: Array<[string, string[], Record<string, string>, string]> = [
    ["unknown agent id", ["chat", "--agent", "nobody"], {}, "not_found"],
    [
      "missing agent file",
      ["chat", "--agent", "./x.agent.yaml"],
      {},
      "not_found",
    ],
    ["missing key", ["chat"], {}, "provider_auth"],
    [
      "missing gemini key",
      ["chat", "--model", "gemini-2.5-pro"],
      {},
      "provider_auth",
    ],
    ["uninferable --model", ["chat", "--model", "llama3"], {}, "usage"],
    [
      "unknown --provider",
      ["chat", "--model", "llama3", "--provider", "nowhere"],
      {},
      "provider_config",
    ],
    ["missing cassette", ["chat", "--fixture", "none.json"], {}, "not_found"],
  ];
  for (const [name, argv, env, code] of cases) {
    await t.step(name, async () => {
      await using dir = await tempDir();
      const r = await runCli([...argv, "--json"], {
        env: { RELAVIUM_HOME: `${dir.path}/home`, ...env },
        cwd: dir.path,
        stdin: "hi\n",
      });
      assert.equal(r.code, 2);
      assert.equal(r.stdout, "");
      assert.equal(JSON.parse(r.stderr).code, code);
      await assert.rejects(
        () => Deno.stat(`${dir.path}/home/history.db`),
        Deno.errors.NotFound,
      );
    });
  }
});

Deno.test("chat --agent <id> --model: the override replaces the primary and its provider", async () => {
  await using dir = await tempDir();
  await write(
    `${dir.path}/.relavium/agents/helper.agent.yaml`,
    "id: helper\nmodel: claude-haiku-4-5\nprovider: anthropic\nsystem_prompt: Help.\nfallback_chain:\n  - model: gpt-5.4-mini\n    provider: openai\n    max_attempts: 1\n",
  );
  await write(`${dir.path}/c.json`, textCassette("openai", ["From o3."]));
  const r = await runCli([
    "chat",
    "--agent",
    "helper",
    "--model",
    "o3",
    "--fixture",
    "c.json",
    "--json",
  ], {
    env: { RELAVIUM_HOME: `${dir.path}/home`, HOME: `${dir.path}/h` },
    cwd: `${dir.path}`,
    stdin: "hi\n",
  });
  assert.equal(r.code, 0, r.stderr);
  const list = events(r.stdout);
  assert.deepEqual([list[0]?.agentRef, list[0]?.model], ["helper", "o3"]);
});

Deno.test("chat → chat-resume: prior turns carried, totals accumulate", async () => {
  await using dir = await tempDir();
  const env = { RELAVIUM_HOME: `${dir.path}/home`, NO_COLOR: "1" };
  await write(`${dir.path}/c1.json`, textCassette("anthropic", ["Paris."]));
  const first = await runCli(["chat", "--json", "--fixture", "c1.json"], {
    env,
    cwd: dir.path,
    stdin: "Capital of France?\n",
  });
  assert.equal(first.code, 0);
  const id = events(first.stdout)[0]?.sessionId as string;
  await write(
    `${dir.path}/c2.json`,
    JSON.stringify({
      schema_version: "1.1",
      strict: true,
      provider: "anthropic",
      calls: [{
        expect: { model: "claude-sonnet-4-6", lastUserIncludes: "And Spain?" },
        chunks: [
          { type: "text_delta", text: "Madrid." },
          {
            type: "stop",
            stopReason: "stop",
            usage: { inputTokens: 40, outputTokens: 3 },
          },
        ],
      }],
    }),
  );
  const resumed = await runCli(["chat-resume", id, "--fixture", "c2.json"], {
    env,
    cwd: dir.path,
    stdin: "And Spain?\n",
  });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(resumed.stdout, "Madrid.\n");
  assert.match(
    resumed.stderr,
    new RegExp(
      `Resumed session ${id} \\(relavium-chat, claude-sonnet-4-6\\) in ${dir.path}: 1 prior turn, mode ask\\. Earlier tool calls and file contents are not carried over\\.`,
    ),
  );
  const shown = JSON.parse(
    (await runCli(["chat-show", id, "--json"], { env, cwd: dir.path })).stdout,
  );
  assert.deepEqual(shown.turns.map((t: { user: string }) => t.user), [
    "Capital of France?",
    "And Spain?",
  ]);
  assert.equal(shown.totalInputTokens, 50);
  const last = await runCli([
    "chat-resume",
    "--last",
    "--json",
    "--fixture",
    "c1.json",
  ], {
    env,
    cwd: dir.path,
    stdin: "",
  });
  assert.equal(last.code, 0);
  assert.equal(last.stderr, "");
  const only = events(last.stdout);
  assert.deepEqual([only.length, only[0]?.type, only[0]?.sessionId], [
    1,
    "session:cancelled",
    id,
  ]);
});

/** A strict v1.1 cassette of one text call with `expect`. */
function expectCassette(expect: Record<string, unknown>, text: string): string {
  return JSON.stringify({
    schema_version: "1.1",
    strict: true,
    provider: "anthropic",
    calls: [{
      expect,
      chunks: [
        { type: "text_delta", text },
        {
          type: "stop",
          stopReason: "stop",
          usage: { inputTokens: 60, outputTokens: 2 },
        },
      ],
    }],
  });
}

Deno.test("chat, then chat-resume in a new process: earlier turns reach the request (expect.messagesInclude)", async () => {
  await using dir = await tempDir();
  const env = { RELAVIUM_HOME: `${dir.path}/home`, NO_COLOR: "1" };
  await write(
    `${dir.path}/c1.json`,
    textCassette("anthropic", ["Paris.", "Madrid."]),
  );
  const first = await runCli(["chat", "--json", "--fixture", "c1.json"], {
    env,
    cwd: dir.path,
    stdin: "Capital of France?\nAnd Spain?\n",
  });
  assert.equal(first.code, 0, first.stderr);
  const id = events(first.stdout)[0]?.sessionId as string;
  await write(
    `${dir.path}/c2.json`,
    expectCassette({
      messagesInclude: [
        "Capital of France?",
        "Paris.",
        "And Spain?",
        "Madrid.",
      ],
      lastUserIncludes: "And Italy?",
    }, "Rome."),
  );
  const child = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      `${ROOT}cli.ts`,
      "chat-resume",
      id,
      "--fixture",
      "c2.json",
      "--json",
    ],
    cwd: dir.path,
    clearEnv: true,
    env,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode("And Italy?\n"));
  await writer.close();
  const out = await child.output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  assert.equal(stderr, "");
  const resumed = events(new TextDecoder().decode(out.stdout));
  assert.equal(resumed[0]?.sequenceNumber, 0);
  assert.deepEqual(signature(resumed), [
    "session:turn_started",
    "agent:token",
    "cost:updated",
    "session:turn_completed",
    "session:cancelled",
  ]);
  assert.equal(resumed[1]?.token, "Rome.");

  // The check bites: text that was never said fails the call (exit 1).
  await write(
    `${dir.path}/c3.json`,
    expectCassette({ messagesInclude: ["Berlin."] }, "x"),
  );
  const miss = await runCli(["chat-resume", id, "--fixture", "c3.json"], {
    env,
    cwd: dir.path,
    stdin: "And Germany?\n",
  });
  assert.equal(miss.code, 1);
  assert.match(
    miss.stderr,
    /expect\.messagesInclude\[0\]: "Berlin\." not found in any request message/,
  );
});

Deno.test("chat-resume of an unknown id exits 2", async () => {
  await using dir = await tempDir();
  const env = { RELAVIUM_HOME: dir.path };
  const none = await runCli(["chat-resume", "nope", "--json"], {
    env,
    cwd: dir.path,
  });
  assert.deepEqual([none.code, none.stdout, JSON.parse(none.stderr).code], [
    2,
    "",
    "not_found",
  ]);
  const last = await runCli(["chat-resume", "--last", "--json"], {
    env,
    cwd: dir.path,
  });
  assert.deepEqual([last.code, JSON.parse(last.stderr).message], [
    2,
    "No session to resume",
  ]);
});

/** Stdin that yields `lines`, then raises `signal` instead of ending. */
function signallingStdin(
  lines: string,
  raise: () => void,
): ReadableStream<Uint8Array> {
  let sent = false;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (!sent) {
        sent = true;
        controller.enqueue(new TextEncoder().encode(lines));
        return;
      }
      raise();
      return new Promise(() => {}); // never ends by itself
    },
  }, { highWaterMark: 0 });
}

Deno.test("chat: SIGINT/SIGTERM outside the REPL cancel and exit 130/143", async (t) => {
  for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
    await t.step(signal, async () => {
      await using dir = await tempDir();
      await write(`${dir.path}/c.json`, textCassette("anthropic", ["Hi."]));
      let raise = (): void => {};
      const b = createBufferedIo({
        env: { RELAVIUM_HOME: `${dir.path}/home` },
        cwd: dir.path,
        stdin: signallingStdin("hello\n", () => raise()),
      });
      raise = () => void b.raise(signal);
      const exit = await main(["chat", "--json", "--fixture", "c.json"], b.io);
      assert.equal(exit, code);
      assert.deepEqual(signature(events(b.stdoutText())).slice(-2), [
        "session:turn_completed",
        "session:cancelled",
      ]);
    });
  }
});

Deno.test("chat: Ctrl-C at the interactive prompt ends the chat (exit 4)", async () => {
  await using dir = await tempDir();
  await write(`${dir.path}/c.json`, textCassette("anthropic", ["Hi."]));
  let raise = (): void => {};
  const b = createBufferedIo({
    env: { RELAVIUM_HOME: `${dir.path}/home`, NO_COLOR: "1" },
    cwd: dir.path,
    stdin: signallingStdin("hello\n", () => raise()),
    stdinIsTerminal: true,
    stdoutIsTerminal: true,
  });
  raise = () => void b.raise("SIGINT");
  assert.equal(await main(["chat", "--fixture", "c.json"], b.io), 4);
  assert.equal(b.stdoutText(), "Hi.\n");
  assert.match(
    b.stderrText(),
    /\/help for commands, \/exit to leave\n> \[10 in \/ 2 out tokens, \$0\.0001\]\n\n> \nResume with: relavium chat-resume /,
  );
});

Deno.test("chat: a tool round reads a file through the jail (cassette v1.1 toolResultFor)", async () => {
  await using dir = await tempDir();
  await write(`${dir.path}/README.md`, "This is a readme.\n");
  await write(
    `${dir.path}/c.json`,
    JSON.stringify({
      schema_version: "1.1",
      strict: true,
      provider: "anthropic",
      calls: [
        {
          expect: { tools: ["read_file", "list_directory", "git_status"] },
          chunks: [
            { type: "tool_call_start", id: "call-1", name: "read_file" },
            {
              type: "tool_call_delta",
              id: "call-1",
              argsJsonDelta: '{"path":"README.md"}',
            },
            { type: "tool_call_end", id: "call-1" },
            {
              type: "stop",
              stopReason: "tool_use",
              usage: { inputTokens: 12, outputTokens: 4 },
            },
          ],
        },
        {
          expect: { toolResultFor: "call-1" },
          chunks: [
            { type: "text_delta", text: "It is a readme." },
            {
              type: "stop",
              stopReason: "stop",
              usage: { inputTokens: 30, outputTokens: 8 },
            },
          ],
        },
      ],
    }),
  );
  const r = await runCli(["chat", "--json", "--fixture", "c.json"], {
    env: { RELAVIUM_HOME: `${dir.path}/home` },
    cwd: dir.path,
    stdin: "What is README.md?\n",
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, "");
  assert.deepEqual(signature(events(r.stdout)), [
    "session:started",
    "session:turn_started",
    "cost:updated",
    "agent:tool_call:read_file",
    "agent:tool_result:read_file",
    "agent:token",
    "cost:updated",
    "session:turn_completed",
    "session:cancelled",
  ]);
  const plain = await runCli([
    "chat",
    "--fixture",
    "c.json",
    "--no-color",
    "-q",
  ], {
    env: { RELAVIUM_HOME: `${dir.path}/home` },
    cwd: dir.path,
    stdin: "What is README.md?\n",
  });
  assert.equal(plain.code, 0);
  assert.equal(plain.stdout, "It is a readme.\n");
  assert.equal(plain.stderr, "[tool: read_file]\n");
});

Deno.test("chat: a file outside the workspace is refused by the sandbox tier", async () => {
  await using dir = await tempDir();
  await write(`${dir.path}/secret.txt`, "outside");
  await write(
    `${dir.path}/ws/c.json`,
    JSON.stringify({
      schema_version: "1.0",
      provider: "anthropic",
      calls: [
        [
          { type: "tool_call_start", id: "call-1", name: "read_file" },
          {
            type: "tool_call_delta",
            id: "call-1",
            argsJsonDelta: '{"path":"../secret.txt"}',
          },
          { type: "tool_call_end", id: "call-1" },
          {
            type: "stop",
            stopReason: "tool_use",
            usage: { inputTokens: 1, outputTokens: 1 },
          },
        ],
        [
          { type: "text_delta", text: "Cannot." },
          {
            type: "stop",
            stopReason: "stop",
            usage: { inputTokens: 1, outputTokens: 1 },
          },
        ],
      ],
    }),
  );
  const r = await runCli(["chat", "--json", "--fixture", "c.json"], {
    env: { RELAVIUM_HOME: `${dir.path}/home` },
    cwd: `${dir.path}/ws`,
    stdin: "read it\n",
  });
  assert.ok(!r.stdout.includes("outside"));
  const result = events(r.stdout).find((e) => e.type === "agent:tool_result");
  assert.equal(result?.success, false);
});
