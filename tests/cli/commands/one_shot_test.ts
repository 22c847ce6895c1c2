/**
 * One-shot use: `agent run [agent] "prompt"` with the prompt as an
 * argument or on stdin (both: stdin follows as context), the built-in chat
 * agent when none is named, and `--output json`'s single final record.
 */
import assert from "node:assert/strict";
import { cliRunArgs } from "../_child.ts";
import { authErrorCassette } from "../_helpers.ts";
import { scenario } from "../_kit/scenario.ts";

const AGENT =
  "id: mini\nname: Mini\nmodel: gpt-5.4-mini\nprovider: openai\nsystem_prompt: Be terse.\n";

/** A strict v1.1 cassette: one call whose last user text includes `asked`. */
function oneCall(provider: string, asked: string, answer: string): string {
  return JSON.stringify({
    schema_version: "1.1",
    strict: true,
    provider,
    calls: [{
      expect: { lastUserIncludes: asked },
      chunks: [
        { type: "text_delta", text: answer },
        {
          type: "stop",
          stopReason: "stop",
          usage: { inputTokens: 12, outputTokens: 3 },
        },
      ],
    }],
  });
}

Deno.test('agent run "prompt" with no agent: the built-in chat agent answers the argument', async () => {
  await using s = await scenario();
  await s.file("c.json", oneCall("anthropic", "What is 2+2?", "4."));
  const r = await s.run(
    ["agent", "run", "What is 2+2?", "--fixture", "c.json"],
    { code: 0 },
  );
  assert.equal(r.stdout, "4.\n");
});

Deno.test("agent run --output json prints exactly one final record on stdout", async () => {
  await using s = await scenario();
  await s.file("c.json", oneCall("anthropic", "What is 2+2?", "4."));
  const r = await s.run(
    ["agent", "run", "What is 2+2?", "--fixture", "c.json", "--output", "json"],
    { code: 0 },
  );
  const lines = r.stdout.split("\n");
  assert.deepEqual([lines.length, lines[1]], [2, ""], r.stdout);
  const record = JSON.parse(lines[0] ?? "");
  assert.deepEqual(Object.keys(record), [
    "type",
    "isError",
    "answer",
    "stopReason",
    "error",
    "usage",
    "cost",
    "sessionId",
    "model",
  ]);
  assert.deepEqual(
    {
      type: record.type,
      isError: record.isError,
      answer: record.answer,
      stopReason: record.stopReason,
      error: record.error,
      usage: record.usage,
    },
    {
      type: "result",
      isError: false,
      answer: "4.",
      stopReason: "stop",
      error: null,
      usage: {
        inputTokens: 12,
        outputTokens: 3,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        unknown: false,
      },
    },
  );
  assert.match(record.sessionId, /^[0-9a-f-]{36}$/);
  assert.equal(typeof record.model, "string");
  assert.ok(record.model.length > 0);
  assert.equal(typeof record.cost.microcents, "number");
  assert.equal(record.cost.usd, record.cost.microcents / 100_000_000);
  assert.equal(record.cost.estimated, false);
});

Deno.test("agent run <agent> <prompt> with piped stdin: stdin follows the prompt after a blank line", async () => {
  await using s = await scenario();
  await s.file("mini.agent.yaml", AGENT);
  await s.file(
    "c.json",
    oneCall("openai", "Summarise this:\n\nline one\nline two", "Two lines."),
  );
  const argv = [
    "agent",
    "run",
    "mini.agent.yaml",
    "Summarise this:",
    "--fixture",
    "c.json",
  ];
  const piped = await s.run(argv, { code: 0, stdin: "line one\nline two\n" });
  assert.equal(piped.stdout, "Two lines.\n");

  // On a terminal stdin is not read: the prompt is the argument alone, so
  // the cassette's expectation (which needs the stdin text) is not met.
  const tty = await s.run(argv, {
    code: 1,
    stdin: "line one\nline two\n",
    tty: true,
  });
  assert.match(tty.stderr, /expect\.lastUserIncludes/);
});

Deno.test("agent run <agent> alone still reads the prompt from stdin; an empty prompt is exit 2", async () => {
  await using s = await scenario();
  await s.file("mini.agent.yaml", AGENT);
  await s.file("c.json", oneCall("openai", "from stdin", "ok"));
  const r = await s.run(
    ["agent", "run", "mini.agent.yaml", "--fixture", "c.json"],
    { code: 0, stdin: "from stdin\n" },
  );
  assert.equal(r.stdout, "ok\n");

  const empty = await s.run(
    [
      "agent",
      "run",
      "mini.agent.yaml",
      "--fixture",
      "c.json",
      "--output",
      "json",
    ],
    { stdin: "\n" },
  );
  assert.equal(empty.code, 2);
  assert.equal(empty.stdout, "");
  assert.match(
    empty.stderr,
    /Empty prompt: give it as an argument or on stdin/,
  );
});

Deno.test("agent run --output json on a failed turn: one record with the error, exit 1", async () => {
  await using s = await scenario();
  await s.file("fail.json", authErrorCassette("anthropic"));
  const r = await s.run(
    [
      "agent",
      "run",
      "hello there",
      "--fixture",
      "fail.json",
      "--output",
      "json",
    ],
    { code: 1 },
  );
  const lines = r.stdout.trimEnd().split("\n");
  assert.equal(lines.length, 1, r.stdout);
  const record = JSON.parse(lines[0] ?? "");
  assert.deepEqual(
    [record.isError, record.answer, record.stopReason],
    [true, "", "error"],
  );
  assert.equal(typeof record.error.code, "string");
  assert.equal(typeof record.error.message, "string");
  assert.match(r.stderr, /turn failed/);
});

Deno.test("agent run <word>: a lone kebab-case word is an agent id; when none exists the error says where a one-word prompt goes", async () => {
  await using s = await scenario();
  const r = await s.run(["agent", "run", "hello"], {
    stdin: "",
  });
  assert.equal(r.code, 2);
  assert.equal(r.stdout, "");
  assert.match(
    r.stderr,
    /No agent "hello".*\(a one-word prompt for the built-in agent goes on stdin\)/,
  );
});

Deno.test('the real CLI: agent run "prompt" --output json writes one line to stdout', async () => {
  await using s = await scenario();
  await s.file("c.json", oneCall("anthropic", "Why?", "Because."));
  const out = await new Deno.Command(Deno.execPath(), {
    args: cliRunArgs([
      "agent",
      "run",
      "Why?",
      "--fixture",
      "c.json",
      "--output",
      "json",
    ]),
    cwd: s.dir,
    clearEnv: true,
    env: { RELAVIUM_HOME: `${s.dir}/home`, NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const lines = stdout.split("\n");
  assert.equal(lines.length, 2, stdout);
  const record = JSON.parse(lines[0] ?? "");
  assert.deepEqual([record.answer, record.stopReason], ["Because.", "stop"]);
});
