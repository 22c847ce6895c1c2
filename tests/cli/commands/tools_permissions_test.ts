/**
 * The Deno permission layer end to end, in real processes (the process
 * boundary is the point): under exactly the flags `doctor --permissions
 * --agent` prints, a chat reads a file and runs an allowlisted command;
 * under a narrower `--allow-read` the out-of-grant read is
 * `tool_unavailable` (naming the flag) and the chat still ends normally.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import type { SessionEvent } from "../../../schema/event.ts";
import {
  parseEvents,
  runCli,
  signature,
  tempDir,
  toolCallChunks,
  trustProjectFiles,
  write,
} from "../_helpers.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

function cassette(calls: unknown[]): string {
  return JSON.stringify({
    schema_version: "1.1",
    strict: true,
    provider: "anthropic",
    calls,
  });
}

async function runChild(
  flags: string[],
  cwd: string,
  env: Record<string, string>,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", ...flags, `${ROOT}cli.ts`, ...args],
    cwd,
    clearEnv: true,
    env,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode("Read notes and say hello\n"));
  await writer.close();
  const out = await child.output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

function turnOf(events: SessionEvent[]) {
  const done = events.find((e) => e.type === "session:turn_completed");
  assert.ok(done?.type === "session:turn_completed");
  return done;
}

Deno.test("the CLI runs under exactly the doctor --permissions flags; a narrower --allow-read makes the read tool_unavailable", async (t) => {
  await using dir = await tempDir();
  const ws = `${dir.path}/ws`;
  const home = `${dir.path}/rh`;
  await write(`${ws}/notes.md`, "Hello from notes.\n");
  await write(`${ws}/sub/keep.txt`, "inside the narrow grant\n");
  await write(
    `${ws}/.relavium/project.toml`,
    '[chat]\nallowed_commands = ["echo hello"]\n',
  );
  await trustProjectFiles(ws, { RELAVIUM_HOME: home });
  await write(
    `${ws}/helper.agent.yaml`,
    "id: helper\nmodel: claude-haiku-4-5\nprovider: anthropic\nsystem_prompt: Help.\ntools:\n  - read_file\n  - run_command\n",
  );
  const doctor = await runCli(
    ["doctor", "--permissions", "--agent", "helper.agent.yaml", "--json"],
    { env: { RELAVIUM_HOME: home, ANTHROPIC_API_KEY: "k" }, cwd: ws },
  );
  assert.equal(doctor.code, 0, doctor.stderr);
  const flags: string[] = JSON.parse(doctor.stdout).permissions.flags;
  const readFlag = flags.find((f) => f.startsWith("--allow-read="));
  const runFlag = flags.find((f) => f.startsWith("--allow-run="));
  assert.equal(runFlag, "--allow-run=echo,kill");
  assert.ok(readFlag?.split("=")[1]?.split(",").includes(ws));
  assert.ok(flags.some((f) => f.startsWith("--deny-net=")));
  assert.equal(flags.at(-1), "--no-prompt");
  // The child gets a fixed PATH (run_command resolves programs on the
  // host PATH) and no HOME (Deno would look for its module cache under it).
  const env = { RELAVIUM_HOME: home, PATH: "/usr/bin:/bin" };

  await t.step(
    "under the doctor flags: a read and an allowed command",
    async () => {
      await write(
        `${ws}/c.json`,
        cassette([
          {
            expect: { tools: ["read_file", "run_command"] },
            chunks: toolCallChunks("c1", "read_file", { path: "notes.md" }),
          },
          {
            expect: {
              toolResultFor: "c1",
              messagesInclude: ["Hello from notes."],
            },
            chunks: toolCallChunks("c2", "run_command", {
              command: "echo",
              args: ["hello"],
            }),
          },
          {
            expect: {
              toolResultFor: "c2",
              messagesInclude: ['"stdout":"hello\\n"'],
            },
            chunks: [
              { type: "text_delta", text: "Notes say hello." },
              {
                type: "stop",
                stopReason: "stop",
                usage: { inputTokens: 9, outputTokens: 3 },
              },
            ],
          },
        ]),
      );
      const r = await runChild(flags, ws, env, [
        "chat",
        "--agent",
        "helper.agent.yaml",
        "--fixture",
        "c.json",
        "--json",
        "--mode",
        "auto",
      ]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stderr, "");
      const events = parseEvents(r.stdout);
      assert.deepEqual(
        signature(events).filter((s) => s.startsWith("agent:tool_result")),
        ["agent:tool_result:read_file", "agent:tool_result:run_command"],
      );
      assert.ok(
        events.every((e) => e.type !== "agent:tool_result" || e.success),
      );
      assert.equal(turnOf(events).error, undefined);
    },
  );

  await t.step(
    "under a narrower --allow-read: tool_unavailable, the chat ends normally",
    async () => {
      await write(
        `${ws}/c2.json`,
        cassette([{
          expect: { tools: [] }, // both need read on the workspace root
          chunks: toolCallChunks("c1", "read_file", { path: "notes.md" }),
        }]),
      );
      const others = (readFlag?.split("=")[1] ?? "").split(",").filter((p) =>
        p !== ws
      );
      const narrow = [
        ...others,
        `${ws}/sub`,
        `${ws}/helper.agent.yaml`,
        `${ws}/c2.json`,
      ];
      const narrowFlags = flags.map((f) =>
        f === readFlag ? `--allow-read=${narrow.join(",")}` : f
      );
      const r = await runChild(narrowFlags, ws, env, [
        "chat",
        "--agent",
        "helper.agent.yaml",
        "--fixture",
        "c2.json",
        "--json",
        "--mode",
        "auto",
      ]);
      assert.equal(r.code, 1, r.stderr);
      assert.equal(r.stderr, "");
      const events = parseEvents(r.stdout);
      const done = turnOf(events);
      assert.equal(done.error?.code, "tool_unavailable");
      assert.equal(
        done.error?.message,
        `Tool unavailable: read_file needs the Deno permission --allow-read=${ws}`,
      );
      assert.ok(!r.stdout.includes("Hello from notes."));
      assert.equal(events.at(-1)?.type, "session:cancelled");
    },
  );
});
