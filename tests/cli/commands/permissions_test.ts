/**
 * The flags `doctor --permissions` recommends are enough: a chat with an
 * agent file, a tool round and a persisted store runs under exactly those
 * flags (and `--no-prompt`) in a real process.
 */
import assert from "node:assert/strict";
import { signature } from "../_helpers.ts";
import { readRound, strictCassette } from "../_kit/cassette.ts";
import { READ_ROUND, scenario } from "../_kit/scenario.ts";

Deno.test("a chat runs under the doctor --permissions flags alone", async () => {
  await using s = await scenario({
    home: "rh",
    env: { NO_COLOR: undefined, ANTHROPIC_API_KEY: "k" },
  });
  await s.file("notes.md", "Hello from notes.\n");
  await s.file(
    "helper.agent.yaml",
    "id: helper\nmodel: claude-haiku-4-5\nprovider: anthropic\nsystem_prompt: Help.\ntools:\n  - read_file\n",
  );
  await s.file(
    "c.json",
    strictCassette(readRound({
      id: "c1",
      path: "notes.md",
      answer: "It says hello.",
      usage: [
        { inputTokens: 5, outputTokens: 2 },
        { inputTokens: 9, outputTokens: 3 },
      ],
    })),
  );
  const doctor = await s.run(["doctor", "--permissions", "--json"], {
    env: { ...s.env, HOME: s.dir },
    code: 0,
  });
  const flags: string[] = JSON.parse(doctor.stdout).permissions.flags;
  assert.equal(flags.at(-1), "--no-prompt");
  const out = await s.child(
    [
      "chat",
      "--agent",
      "helper.agent.yaml",
      "--fixture",
      "c.json",
      "--json",
      "-v",
    ],
    {
      // --quiet: no "cannot find git" info line, PATH is cleared.
      flags: ["--quiet", ...flags],
      // No HOME: Deno would look for its module cache under it.
      env: { RELAVIUM_HOME: s.home },
      stdin: "What does notes.md say?\n",
      code: 0,
    },
  );
  assert.equal(out.stderr, "");
  const events = out.events;
  assert.deepEqual(signature(events).slice(-6), [
    ...READ_ROUND.slice(1),
    "session:cancelled",
  ]);
  const result = events.find((e) => e.type === "agent:tool_result");
  assert.ok(result?.type === "agent:tool_result" && result.success);
});
