/**
 * The Deno permission layer end to end, in real processes (the process
 * boundary is the point): under exactly the flags `doctor --permissions
 * --agent` prints, a chat reads a file and runs an allowlisted command;
 * under a narrower `--allow-read` the out-of-grant read is
 * `tool_unavailable` (naming the flag) and the chat still ends normally.
 */
import assert from "node:assert/strict";
import type { SessionEvent } from "../../../schema/event.ts";
import { signature, trustProjectFiles } from "../_helpers.ts";
import {
  callChunks,
  strictCassette as cassette,
  textChunks,
} from "../_kit/cassette.ts";
import { type Scenario, scenario } from "../_kit/scenario.ts";

/**
 * `chat` with the helper agent on `fixture` in auto mode, as a child under
 * `flags`; `code` is its exit (0: every turn succeeded, 1: one failed).
 */
function chatChild(
  s: Scenario,
  flags: string[],
  fixture: string,
  code: 0 | 1 = 0,
) {
  return s.child(
    [
      "chat",
      "--agent",
      "helper.agent.yaml",
      "--fixture",
      fixture,
      "--json",
      "--mode",
      "auto",
    ],
    {
      flags: ["--quiet", ...flags],
      // A fixed PATH (run_command resolves programs on the host PATH) and
      // no HOME (Deno would look for its module cache under it).
      env: { RELAVIUM_HOME: s.home, PATH: "/usr/bin:/bin" },
      stdin: "Read notes and say hello\n",
      code,
    },
  );
}

function turnOf(events: SessionEvent[]) {
  const done = events.find((e) => e.type === "session:turn_completed");
  assert.ok(done?.type === "session:turn_completed");
  return done;
}

Deno.test("the CLI runs under exactly the doctor --permissions flags; a narrower --allow-read makes the read tool_unavailable", async (t) => {
  await using s = await scenario({
    cwd: "ws",
    home: "rh",
    env: { NO_COLOR: undefined, ANTHROPIC_API_KEY: "k" },
  });
  const ws = s.cwd;
  await s.file("notes.md", "Hello from notes.\n");
  await s.file("sub/keep.txt", "inside the narrow grant\n");
  await s.project('[chat]\nallowed_commands = ["echo hello"]\n');
  await trustProjectFiles(ws, { RELAVIUM_HOME: s.home });
  await s.file(
    "helper.agent.yaml",
    "id: helper\nmodel: claude-haiku-4-5\nprovider: anthropic\nsystem_prompt: Help.\ntools:\n  - read_file\n  - run_command\n",
  );
  const doctor = await s.run(
    ["doctor", "--permissions", "--agent", "helper.agent.yaml", "--json"],
    { code: 0 },
  );
  const flags: string[] = JSON.parse(doctor.stdout).permissions.flags;
  const readFlag = flags.find((f) => f.startsWith("--allow-read="));
  const runFlag = flags.find((f) => f.startsWith("--allow-run="));
  assert.equal(runFlag, "--allow-run=echo,kill");
  assert.ok(readFlag?.split("=")[1]?.split(",").includes(ws));
  assert.ok(flags.some((f) => f.startsWith("--deny-net=")));
  assert.equal(flags.at(-1), "--no-prompt");

  await t.step(
    "under the doctor flags: a read and an allowed command",
    async () => {
      await s.file(
        "c.json",
        cassette([
          {
            expect: { tools: ["read_file", "run_command"] },
            chunks: callChunks("c1", "read_file", { path: "notes.md" }),
          },
          {
            expect: {
              toolResultFor: "c1",
              messagesInclude: ["Hello from notes."],
            },
            chunks: callChunks("c2", "run_command", {
              command: "echo",
              args: ["hello"],
            }),
          },
          {
            expect: {
              toolResultFor: "c2",
              messagesInclude: ['"stdout":"hello\\n"'],
            },
            chunks: textChunks("Notes say hello.", {
              inputTokens: 9,
              outputTokens: 3,
            }),
          },
        ]),
      );
      const r = await chatChild(s, flags, "c.json");
      assert.equal(r.stderr, "");
      const events = r.events;
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
      await s.file(
        "c2.json",
        cassette([{
          expect: { tools: [] }, // both need read on the workspace root
          chunks: callChunks("c1", "read_file", { path: "notes.md" }),
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
      const r = await chatChild(s, narrowFlags, "c2.json", 1);
      assert.equal(r.stderr, "");
      const events = r.events;
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
