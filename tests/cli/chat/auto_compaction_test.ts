/**
 * Issue #7: a 60-turn cassette session on a model with a small declared
 * window (cassette v1.1 `context_window`) runs to the end under automatic
 * compaction. Every cassette call answers the same short text, so the
 * queue does not depend on when the summariser runs.
 */
import assert from "node:assert/strict";
import { parseEvents, runCli, tempDir, write } from "../_helpers.ts";

const WINDOW = 8_000;
const TURNS = 60;

function reply(): unknown {
  return {
    chunks: [
      { type: "text_delta", text: "Noted." },
      {
        type: "stop",
        stopReason: "stop",
        usage: { inputTokens: 50, outputTokens: 2 },
      },
    ],
  };
}

Deno.test("chat: a 60-turn cassette session on an 8,000-token window runs to the end under automatic compaction", async () => {
  await using dir = await tempDir();
  const env = { RELAVIUM_HOME: `${dir.path}/home`, NO_COLOR: "1" };
  // The hard turn cap (default 50) is raised for this long session.
  await write(
    `${dir.path}/.relavium/project.toml`,
    "[chat]\nmax_turns = 100\n",
  );
  await write(
    `${dir.path}/agent.yaml`,
    "id: long-chat\nprovider: anthropic\nmodel: claude-sonnet-4-6\nmax_tokens: 256\nsystem_prompt: You take notes.\n",
  );
  await write(
    `${dir.path}/c.json`,
    JSON.stringify({
      schema_version: "1.1",
      provider: "anthropic",
      context_window: WINDOW,
      calls: Array.from({ length: 160 }, reply),
    }),
  );
  const lines = Array.from(
    { length: TURNS },
    (_, i) =>
      `Note ${i + 1}: ${
        "the quick brown fox jumps over the lazy dog ".repeat(27)
      }`,
  );
  const r = await runCli(
    ["chat", "--json", "--agent", "agent.yaml", "--fixture", "c.json"],
    { env, cwd: dir.path, stdin: lines.join("\n") + "\n" },
  );
  assert.equal(r.code, 0, r.stderr);
  const events = parseEvents(r.stdout);
  const done = events.filter((e) => e.type === "session:turn_completed");
  assert.equal(done.length, TURNS);
  assert.ok(
    done.every((e) =>
      e.type === "session:turn_completed" && e.stopReason === "stop"
    ),
    "every turn completed",
  );
  const compacted = events.filter((e) => e.type === "session:compacted");
  assert.ok(compacted.length >= 2, `compactions: ${compacted.length}`);
  for (const e of compacted) {
    assert.ok(e.type === "session:compacted");
    assert.notEqual(e.reason, "manual");
    // The latest completed exchange is always among what is kept.
    assert.ok(e.keptTurnCount >= 1);
    assert.ok(e.tokensAfter < e.tokensBefore);
  }
  assert.equal(
    events.filter((e) => e.type === "session:compaction_failed").length,
    0,
  );
  assert.equal(events.at(-1)?.type, "session:cancelled");
});
