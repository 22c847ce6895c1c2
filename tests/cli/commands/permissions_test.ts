/**
 * The flags `doctor --permissions` recommends are enough: a chat with an
 * agent file, a tool round and a persisted store runs under exactly those
 * flags (and `--no-prompt`) in a real process.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { parseEvents, runCli, signature, tempDir, write } from "../_helpers.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

Deno.test("a chat runs under the doctor --permissions flags alone", async () => {
  await using dir = await tempDir();
  const env = {
    RELAVIUM_HOME: `${dir.path}/rh`,
    HOME: dir.path,
    ANTHROPIC_API_KEY: "k",
  };
  await write(`${dir.path}/notes.md`, "Hello from notes.\n");
  await write(
    `${dir.path}/helper.agent.yaml`,
    "id: helper\nmodel: claude-haiku-4-5\nprovider: anthropic\nsystem_prompt: Help.\ntools:\n  - read_file\n",
  );
  await write(
    `${dir.path}/c.json`,
    JSON.stringify({
      schema_version: "1.1",
      strict: true,
      provider: "anthropic",
      calls: [
        {
          expect: { tools: ["read_file"] },
          chunks: [
            { type: "tool_call_start", id: "c1", name: "read_file" },
            {
              type: "tool_call_delta",
              id: "c1",
              argsJsonDelta: '{"path":"notes.md"}',
            },
            { type: "tool_call_end", id: "c1" },
            {
              type: "stop",
              stopReason: "tool_use",
              usage: { inputTokens: 5, outputTokens: 2 },
            },
          ],
        },
        {
          expect: { toolResultFor: "c1" },
          chunks: [
            { type: "text_delta", text: "It says hello." },
            {
              type: "stop",
              stopReason: "stop",
              usage: { inputTokens: 9, outputTokens: 3 },
            },
          ],
        },
      ],
    }),
  );
  const doctor = await runCli(["doctor", "--permissions", "--json"], {
    env,
    cwd: dir.path,
  });
  assert.equal(doctor.code, 0, doctor.stderr);
  const flags: string[] = JSON.parse(doctor.stdout).permissions.flags;
  assert.equal(flags.at(-1), "--no-prompt");
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet", // no "cannot find git" info line: PATH is cleared
      ...flags,
      `${ROOT}cli.ts`,
      "chat",
      "--agent",
      "helper.agent.yaml",
      "--fixture",
      "c.json",
      "--json",
      "-v",
    ],
    cwd: dir.path,
    clearEnv: true,
    // No HOME: Deno would look for its module cache under it.
    env: { RELAVIUM_HOME: env.RELAVIUM_HOME },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode("What does notes.md say?\n"));
  await writer.close();
  const out = await child.output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  assert.equal(stderr, "");
  const events = parseEvents(new TextDecoder().decode(out.stdout));
  assert.deepEqual(signature(events).slice(-6), [
    "agent:tool_call:read_file",
    "agent:tool_result:read_file",
    "agent:token",
    "cost:updated",
    "session:turn_completed",
    "session:cancelled",
  ]);
  const result = events.find((e) => e.type === "agent:tool_result");
  assert.ok(result?.type === "agent:tool_result" && result.success);
});
