/** Regression harness for `agent run`, in-process and once through a real process. */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import {
  parseEvents,
  runCli,
  tempDir,
  textCassette,
  write,
} from "../_helpers.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const AGENT =
  "id: mini\nname: Mini\nmodel: gpt-5.4-mini\nprovider: openai\nsystem_prompt: Be terse.\n";

function types(stdout: string): string[] {
  return parseEvents(stdout).map((e) => e.type);
}

Deno.test("agent run: one turn from stdin, stream grammar of chat, nothing stored", async () => {
  await using dir = await tempDir();
  await write(`${dir.path}/mini.agent.yaml`, AGENT);
  await write(
    `${dir.path}/c.json`,
    JSON.stringify({
      schema_version: "1.1",
      strict: true,
      provider: "openai",
      calls: [{
        expect: {
          lastUserIncludes: "line one\nline two",
          model: "gpt-5.4-mini",
        },
        chunks: [
          { type: "text_delta", text: "Done." },
          {
            type: "stop",
            stopReason: "stop",
            usage: { inputTokens: 9, outputTokens: 1 },
          },
        ],
      }],
    }),
  );
  const env = { RELAVIUM_HOME: `${dir.path}/home` };
  const r = await runCli([
    "agent",
    "run",
    "mini.agent.yaml",
    "--fixture",
    "c.json",
    "--json",
  ], {
    env,
    cwd: dir.path,
    stdin: "line one\nline two\n",
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, "");
  assert.deepEqual(types(r.stdout), [
    "session:started",
    "session:turn_started",
    "agent:token",
    "cost:updated",
    "session:turn_completed",
    "session:cancelled",
  ]);
  await assert.rejects(
    () => Deno.stat(`${dir.path}/home`),
    Deno.errors.NotFound,
  );
  const plain = await runCli([
    "agent",
    "run",
    "mini.agent.yaml",
    "--fixture",
    "c.json",
  ], {
    env,
    cwd: dir.path,
    stdin: "line one\nline two\n",
  });
  assert.deepEqual([plain.code, plain.stdout, plain.stderr], [
    0,
    "Done.\n",
    "",
  ]);
});

Deno.test("agent run: a turn error exits 1 and prints the provider's words, no recovery hint", async () => {
  await using dir = await tempDir();
  await write(`${dir.path}/mini.agent.yaml`, AGENT);
  await write(
    `${dir.path}/c.json`,
    JSON.stringify({
      schema_version: "1.0",
      provider: "openai",
      calls: [[{
        type: "error",
        error: {
          kind: "auth",
          provider: "openai",
          message: "bad key sk-live-123",
          retryable: false,
        },
      }]],
    }),
  );
  const r = await runCli([
    "agent",
    "run",
    "mini.agent.yaml",
    "--fixture",
    "c.json",
  ], {
    env: { RELAVIUM_HOME: dir.path, NO_COLOR: "1" },
    cwd: dir.path,
    stdin: "hi",
  });
  assert.equal(r.code, 1);
  assert.equal(r.stdout, "");
  assert.equal(
    r.stderr,
    "[turn failed: provider_auth] The provider rejected the credentials (openai): bad key sk-live-123\n",
    "the provider's words, no recovery hint",
  );
});

Deno.test("agent run: cassette faults exit 1 (extra call, strict leftovers)", async (t) => {
  const cases: Array<[string, string, RegExp]> = [
    [
      "extra call",
      JSON.stringify({ schema_version: "1.0", provider: "openai", calls: [] }),
      /unexpected stream call #1 \(only 0 recorded\)/,
    ],
    [
      "strict leftovers",
      JSON.stringify({
        schema_version: "1.1",
        strict: true,
        provider: "openai",
        calls: [
          [{ type: "text_delta", text: "a" }, {
            type: "stop",
            stopReason: "stop",
            usage: { inputTokens: 1, outputTokens: 1 },
          }],
          [{ type: "text_delta", text: "b" }, {
            type: "stop",
            stopReason: "stop",
            usage: { inputTokens: 1, outputTokens: 1 },
          }],
        ],
      }),
      /1 recorded call\(s\) not consumed \(strict\)/,
    ],
  ];
  for (const [name, cassette, message] of cases) {
    await t.step(name, async () => {
      await using dir = await tempDir();
      await write(`${dir.path}/mini.agent.yaml`, AGENT);
      await write(`${dir.path}/c.json`, cassette);
      const r = await runCli([
        "agent",
        "run",
        "mini.agent.yaml",
        "--fixture",
        "c.json",
        "--json",
      ], {
        env: { RELAVIUM_HOME: dir.path },
        cwd: dir.path,
        stdin: "hi",
      });
      assert.equal(r.code, 1);
      assert.match(r.stderr, message);
      assert.equal(types(r.stdout).at(-1), "session:cancelled");
    });
  }
});

Deno.test("agent run: bad input exits 2 before the session", async (t) => {
  const cases: Array<[string, string[], string, string]> = [
    ["empty stdin", ["mini.agent.yaml"], "", "empty_input"],
    ["whitespace stdin", ["mini.agent.yaml"], " \n\t\n", "empty_input"],
    ["unknown agent", ["ghost"], "hi", "not_found"],
    ["invalid agent", ["bad.agent.yaml"], "hi", "invalid_agent"],
    ["reserved --input", ["mini.agent.yaml", "--input", "a=b"], "hi", "usage"],
    ["missing variable", ["vars.agent.yaml"], "hi", "invalid_agent"],
  ];
  for (const [name, args, stdin, code] of cases) {
    await t.step(name, async () => {
      await using dir = await tempDir();
      await write(`${dir.path}/mini.agent.yaml`, AGENT);
      await write(`${dir.path}/bad.agent.yaml`, `${AGENT}colour: red\n`);
      await write(
        `${dir.path}/vars.agent.yaml`,
        AGENT.replace("Be terse.", "Focus on {{ctx.focus}}."),
      );
      await write(`${dir.path}/c.json`, textCassette("openai", ["x"]));
      const r = await runCli([
        "agent",
        "run",
        ...args,
        "--fixture",
        "c.json",
        "--json",
      ], {
        env: { RELAVIUM_HOME: dir.path, HOME: dir.path },
        cwd: dir.path,
        stdin,
      });
      assert.equal(r.code, 2);
      assert.equal(r.stdout, "");
      assert.equal(JSON.parse(r.stderr).code, code);
    });
  }
});

Deno.test("agent run through real argv parsing in a subprocess", async () => {
  await using dir = await tempDir();
  await write(`${dir.path}/mini.agent.yaml`, AGENT);
  await write(
    `${dir.path}/c.json`,
    textCassette("openai", ["From a process."]),
  );
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      `${ROOT}cli.ts`,
      "agent",
      "run",
      "mini.agent.yaml",
      "--cwd",
      dir.path,
      "--fixture",
      "c.json",
      "--json",
    ],
    cwd: ROOT,
    clearEnv: true,
    env: { RELAVIUM_HOME: `${dir.path}/home`, NO_COLOR: "1" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode("hello\n"));
  await writer.close();
  const out = await child.output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  assert.equal(stderr, "");
  assert.deepEqual(types(new TextDecoder().decode(out.stdout)), [
    "session:started",
    "session:turn_started",
    "agent:token",
    "cost:updated",
    "session:turn_completed",
    "session:cancelled",
  ]);
});
