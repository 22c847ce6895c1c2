/**
 * Tools end to end through `main(argv, io)` with cassettes:
 * a `read_file` result reaching the next request, `write_file` denied in
 * `ask` and performed under `--mode auto`, `run_command` allowlisted or
 * denied under `--mode auto --json`, invalid arguments fed back as a
 * correctable error, and `!`/`@` in an interactive chat (a fake TTY).
 */
import assert from "node:assert/strict";
import { createBufferedIo } from "../../../cli/io/io.ts";
import {
  READ_ROUND,
  type Scenario,
  scenario,
  type ScenarioRun,
} from "../_kit/scenario.ts";
import { main } from "../../../cli/main.ts";
import {
  callChunks,
  readRound,
  type StrictCall,
  strictCassette,
  textChunks,
} from "../_kit/cassette.ts";
import type { SessionEvent } from "../../../schema/event.ts";
import { lineStdin, signature, trustProjectFiles } from "../_helpers.ts";

function agentYaml(tools: string[]): string {
  return `id: helper\nmodel: claude-haiku-4-5\nprovider: anthropic\nsystem_prompt: Help.\ntools:\n${
    tools.map((t) => `  - ${t}\n`).join("")
  }`;
}

/** The project config allowing `echo hello`. */
const ECHO_HELLO = '[chat]\nallowed_commands = ["echo hello"]\n';

/** Writes the rig: `helper.agent.yaml` with `tools`, `c.json` of `calls`, the project config. */
async function setUp(
  s: Scenario,
  options: { tools: string[]; calls: StrictCall[]; config?: string },
): Promise<void> {
  await s.file("helper.agent.yaml", agentYaml(options.tools));
  await s.file("c.json", strictCassette(options.calls));
  if (options.config !== undefined) await s.project(options.config);
}

/** The argv of `command` on the rig's agent and cassette, then `flags`. */
function rigArgv(command: "chat" | "agent run", ...flags: string[]): string[] {
  return [
    ...command.split(" "),
    ...(command === "chat" ? ["--agent"] : []),
    "helper.agent.yaml",
    ...["--fixture", "c.json", ...flags],
  ];
}

/** Runs `command` on the rig with `prompt` as its one line (no terminal). */
function runRig(
  s: Scenario,
  prompt: string,
  command: "chat" | "agent run",
  ...flags: string[]
): Promise<ScenarioRun> {
  return s.run(rigArgv(command, ...flags), { stdin: `${prompt}\n` });
}

/** `agent run helper.agent.yaml --json --mode accept-edits`: no terminal. */
function agentRunAcceptEdits(s: Scenario, prompt: string) {
  return runRig(s, prompt, "agent run", "--json", "--mode", "accept-edits");
}

function completed(events: SessionEvent[]): SessionEvent[] {
  return events.filter((e) => e.type === "session:turn_completed");
}

/**
 * A clean piped `--json` chat: its exit code (0 when every turn succeeded,
 * 1 when one failed), empty stderr; its events.
 */
function cleanChat(r: ScenarioRun, code: 0 | 1 = 0): SessionEvent[] {
  assert.equal(r.code, code, r.stderr);
  assert.equal(r.stderr, "");
  return r.events;
}

Deno.test("a read_file result reaches the next request (expect.messagesInclude)", async () => {
  await using s = await scenario({ env: { NO_COLOR: undefined } });
  await s.file("notes.md", "The launch code is tangerine.\n");
  await setUp(s, {
    tools: ["read_file"],
    calls: readRound({
      id: "c1",
      path: "notes.md",
      answer: "It says tangerine.",
      messagesInclude: ["The launch code is tangerine."],
    }),
  });
  const events = cleanChat(
    await runRig(s, "What does notes.md say?", "chat", "--json"),
  );
  assert.deepEqual(signature(events).slice(2, -1), READ_ROUND);
  const done = completed(events)[0];
  assert.ok(done?.type === "session:turn_completed");
  assert.equal(done.stopReason, "stop");
});

/** The model's write reached the disk. */
async function assertWritten(s: Scenario): Promise<void> {
  assert.equal(
    await Deno.readTextFile(`${s.cwd}/out/result.txt`),
    "written by the model\n",
  );
}

Deno.test("write_file: refused in ask without a terminal, performed under --mode auto and accept-edits", async (t) => {
  await using s = await scenario({ env: { NO_COLOR: undefined } });
  const writeCall = callChunks("w1", "write_file", {
    path: "out/result.txt",
    content: "written by the model\n",
    createDirs: true,
  });
  await t.step("ask (the default) refuses; nothing is written", async () => {
    await setUp(s, {
      tools: ["read_file", "write_file"],
      calls: [{
        expect: { tools: ["read_file", "write_file"] },
        chunks: writeCall,
      }],
    });
    const events = cleanChat(
      await runRig(s, "write it", "chat", "--json"),
      1,
    );
    const result = events.find((e) => e.type === "agent:tool_result");
    assert.ok(result?.type === "agent:tool_result" && !result.success);
    const done = completed(events)[0];
    assert.ok(done?.type === "session:turn_completed");
    assert.equal(done.error?.code, "tool_denied");
    assert.match(
      done.error?.message ?? "",
      /Tool call denied \(no_approval_hook\): write_file needs approval in ask mode and there is no terminal to ask on/,
    );
    assert.equal(
      events.some((e) => e.type === "agent:approval_requested"),
      false,
    );
    await assert.rejects(Deno.stat(`${s.cwd}/out/result.txt`));
  });
  await t.step("--mode auto writes without a prompt", async () => {
    await setUp(s, {
      tools: ["read_file", "write_file"],
      calls: [
        { expect: { tools: ["read_file", "write_file"] }, chunks: writeCall },
        { expect: { toolResultFor: "w1" }, chunks: textChunks("Done.") },
      ],
    });
    const events = cleanChat(
      await runRig(s, "write it", "chat", "--json", "--mode", "auto"),
    );
    assert.equal(completed(events)[0]?.type, "session:turn_completed");
    const done = completed(events)[0];
    assert.ok(done?.type === "session:turn_completed" && !done.error);
    await assertWritten(s);
  });
  await t.step(
    "agent run --mode accept-edits runs a write in the jail without a terminal",
    async () => {
      await Deno.remove(`${s.cwd}/out`, { recursive: true });
      await setUp(s, {
        tools: ["read_file", "write_file"],
        calls: [
          { chunks: writeCall },
          { expect: { toolResultFor: "w1" }, chunks: textChunks("Done.") },
        ],
      });
      const r = await agentRunAcceptEdits(s, "write it");
      assert.equal(r.code, 0, r.stderr);
      assert.equal(
        r.events.some((e) => e.type === "agent:approval_requested"),
        false,
      );
      await assertWritten(s);
    },
  );
  await t.step(
    "agent run --mode accept-edits refuses a command without a terminal",
    async () => {
      await setUp(s, {
        tools: ["run_command"],
        config: ECHO_HELLO,
        calls: [{
          chunks: callChunks("r1", "run_command", {
            command: "echo",
            args: ["hello"],
          }),
        }],
      });
      const r = await agentRunAcceptEdits(s, "run it");
      assert.equal(r.code, 1, r.stderr);
      const done = completed(r.events)[0];
      assert.ok(done?.type === "session:turn_completed");
      assert.match(
        done.error?.message ?? "",
        /run_command needs approval in accept-edits mode and there is no terminal/,
      );
    },
  );
});

Deno.test("--mode auto --json: an allowlisted run_command runs, an unlisted one is denied", async () => {
  await using s = await scenario({ env: { NO_COLOR: undefined } });
  await setUp(s, {
    tools: ["run_command"],
    config: ECHO_HELLO,
    calls: [
      {
        expect: { tools: ["run_command"] },
        chunks: callChunks("r1", "run_command", {
          command: "echo",
          args: ["hello"],
        }),
      },
      {
        expect: { toolResultFor: "r1", messagesInclude: ['"exitCode":0'] },
        chunks: callChunks("r2", "run_command", {
          command: "echo",
          args: ["goodbye"],
        }),
      },
    ],
  });
  const events = cleanChat(
    await runRig(s, "say hello", "chat", "--json", "--mode", "auto"),
    1,
  );
  const results = events.filter((e) => e.type === "agent:tool_result");
  assert.deepEqual(
    results.map((e) => e.type === "agent:tool_result" && e.success),
    [true, false],
  );
  const done = completed(events)[0];
  assert.ok(done?.type === "session:turn_completed");
  assert.equal(done.error?.code, "tool_denied");
  assert.match(done.error?.message ?? "", /command_not_allowed/);
  assert.equal(events.at(-1)?.type, "session:cancelled");
});

Deno.test("invalid tool arguments go back to the model as a correctable error", async () => {
  await using s = await scenario({ env: { NO_COLOR: undefined } });
  await s.file("a.txt", "alpha\n");
  await setUp(s, {
    tools: ["read_file"],
    calls: [
      { chunks: callChunks("c1", "read_file", { file: "a.txt" }) },
      {
        expect: {
          toolResultFor: "c1",
          messagesInclude: ["Invalid arguments for read_file"],
        },
        chunks: callChunks("c2", "read_file", { path: "a.txt" }),
      },
      {
        expect: { toolResultFor: "c2", messagesInclude: ["alpha"] },
        chunks: textChunks("It says alpha."),
      },
    ],
  });
  const r = await runRig(s, "read a.txt", "chat", "--json");
  assert.equal(r.code, 0, r.stderr);
  const events = r.events;
  const results = events.filter((e) => e.type === "agent:tool_result");
  assert.deepEqual(
    results.map((e) => e.type === "agent:tool_result" && e.success),
    [false, true],
  );
  const done = completed(events)[0];
  assert.ok(done?.type === "session:turn_completed" && !done.error);
});

/** A stdin that hands out one line per read, so prompts interleave in order. */
Deno.test("interactive chat: ! runs through the allowlist and mode, @ attaches a jailed file", async () => {
  await using s = await scenario();
  await s.file("notes.md", "remember the milk\n");
  await s.file(".env", "TOKEN=very-secret\n");
  const nonce = "07".repeat(16);
  const commandFrame =
    `<command id="${nonce}" cmd="echo hello" exit="0">\nhello\n\n</command:${nonce}>`;
  const fileFrame =
    `<file id="${nonce}" path="notes.md">\nremember the milk\n\n</file:${nonce}>`;
  await setUp(s, {
    tools: ["read_file"],
    config: ECHO_HELLO,
    calls: [{
      expect: {
        tools: ["read_file"],
        lastUserIncludes:
          `summarise @notes.md and @.env\n\n${commandFrame}\n\n${commandFrame}\n\n${fileFrame}`,
      },
      chunks: textChunks("Milk, and hello."),
    }],
  });
  await trustProjectFiles(s.cwd, s.env);
  const b = createBufferedIo({
    env: s.env,
    cwd: s.cwd,
    stdin: lineStdin([
      "!echo hello",
      "y",
      "!echo 'hello world'",
      "/mode plan",
      "!echo hello",
      "/mode accept-edits",
      "!echo hello",
      "n",
      "!echo hello",
      "y",
      "!",
      "summarise @notes.md and @.env",
    ]),
    stdinIsTerminal: true,
    stdoutIsTerminal: true,
    randomBytes: (n) => new Uint8Array(n).fill(7),
  });
  const code = await main(rigArgv("chat", "--mode", "accept-edits"), b.io);
  const err = b.stderrText();
  assert.equal(code, 4, err);
  assert.equal(b.stdoutText(), "Milk, and hello.\n");
  const expected = [
    "Approve run_command echo hello? [y] once  [n] no ",
    "hello\n[exit 0 · queued for your next message]\n",
    '! echo hello world: not allowed. Add "echo hello world" to [chat].allowed_commands to enable it.\n',
    "Mode: plan (from the next turn)\n",
    "! echo hello: plan mode runs no commands. Switch with /mode (ask asks first) to run it.\n",
    "! echo hello: you declined it; nothing ran.\n",
    "@notes.md: attached 18 chars (≈5 tokens)\n",
    "@.env: path is on the sensitive-read floor; sent as text\n",
  ];
  let at = 0;
  for (const piece of expected) {
    const i = err.indexOf(piece, at);
    assert.ok(i >= 0, `missing in order: ${JSON.stringify(piece)}\n${err}`);
    at = i + piece.length;
  }
  assert.ok(!err.includes("[a] always"), "a user command is never cacheable");
  assert.ok(
    !err.includes("very-secret") && !b.stdoutText().includes("very-secret"),
  );
});

Deno.test("plain and --json chats send ! and @ lines as literal text", async () => {
  await using s = await scenario({ env: { NO_COLOR: undefined } });
  await s.file("notes.md", "remember the milk\n");
  await setUp(s, {
    tools: ["read_file"],
    config: ECHO_HELLO,
    calls: [
      {
        expect: { lastUserIncludes: "!echo hello" },
        chunks: textChunks("a"),
      },
      {
        expect: { lastUserIncludes: "look at @notes.md" },
        chunks: textChunks("b"),
      },
    ],
  });
  const r = await runRig(s, "!echo hello\nlook at @notes.md", "chat", "--json");
  assert.equal(r.code, 0, r.stderr);
  assert.ok(!r.stdout.includes("remember the milk"));
  assert.ok(!r.stdout.includes("<file"));
});

Deno.test("git_commit: the per-call gate asks only in an interactive TTY", async (t) => {
  await using s = await scenario();
  const commit = callChunks("g1", "git_commit", {
    message: "fix: typo",
    files: ["a.md"],
  });
  await t.step("--json --mode auto: gate_required, nothing asked", async () => {
    await setUp(s, { tools: ["git_commit"], calls: [{ chunks: commit }] });
    const events = cleanChat(
      await runRig(s, "commit", "chat", "--json", "--mode", "auto"),
      1,
    );
    const done = completed(events)[0];
    assert.ok(done?.type === "session:turn_completed");
    assert.match(done.error?.message ?? "", /gate_required/);
  });
  await t.step(
    "interactive auto: the gate shows message and files; n declines",
    async () => {
      await setUp(s, { tools: ["git_commit"], calls: [{ chunks: commit }] });
      const { code, err } = await gateChat(s);
      assert.equal(code, 4, err);
      assert.ok(
        err.includes('Commit "fix: typo" (a.md)? [y] yes  [n] no '),
        err,
      );
      assert.match(err, /\[turn failed: tool_denied\]/);
    },
  );
});

/** An interactive `--mode auto` chat that asks to commit, then answers n. */
async function gateChat(s: Scenario): Promise<{ code: number; err: string }> {
  const b = createBufferedIo({
    env: s.env,
    cwd: s.cwd,
    stdin: lineStdin(["commit it", "n"]),
    stdinIsTerminal: true,
    stdoutIsTerminal: true,
  });
  const code = await main(rigArgv("chat", "--mode", "auto"), b.io);
  return { code, err: b.stderrText() };
}

Deno.test("interactive auto: the git_commit gate shows a long message and every file, never cut", async () => {
  await using s = await scenario();
  const tail = "--the-end-of-the-message";
  const message = `feat: ${"long ".repeat(80)}${tail}`;
  const files = Array.from({ length: 14 }, (_, i) => `file-${i}.md`);
  await setUp(s, {
    tools: ["git_commit"],
    calls: [{ chunks: callChunks("g1", "git_commit", { message, files }) }],
  });
  const { code, err } = await gateChat(s);
  assert.equal(code, 4, err);
  assert.ok(err.includes(tail), "the message's end is shown");
  assert.ok(err.includes("file-13.md"), "the last file is shown");
  assert.ok(!err.includes(" more)"), "no file is left out");
});

Deno.test("agent run --mode auto runs an allowlisted command unattended (CI)", async () => {
  await using s = await scenario({ env: { NO_COLOR: undefined } });
  await setUp(s, {
    tools: ["run_command"],
    config: '[chat]\nallowed_command_globs = ["echo *"]\n',
    calls: [
      {
        chunks: callChunks("r1", "run_command", {
          command: "echo",
          args: ["ci", "ok"],
        }),
      },
      {
        expect: { toolResultFor: "r1", messagesInclude: ["ci ok"] },
        chunks: textChunks("Tests pass."),
      },
    ],
  });
  const r = await runRig(s, "run the checks", "agent run", "--mode", "auto");
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "Tests pass.\n");
});
