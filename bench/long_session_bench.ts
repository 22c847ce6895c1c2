/**
 * Long sessions (issue 12): per-turn engine time with an instant provider
 * at 100, 1,000 and 10,000 turns of history.
 *
 *   deno bench bench/long_session_bench.ts
 *
 * One iteration = one `sendMessage` of a short question answered at once
 * by an in-memory provider (one text chunk + stop), on an agent with the
 * whole transcript in every request (`memory` omitted, automatic
 * compaction on, the bundled catalog: 1M-token window, so nothing
 * compacts), no tools, no store. Only that turn is timed.
 *
 * The history is seeded, not run: before each iteration a fresh session
 * is resumed (`AgentSession.resume`) from a `ResumeState` of N synthetic
 * turns (`bench/_long_session.ts`, the texts of `bench/long_chat.ts`) and
 * one untimed warm-up turn runs, so the timed turn is turn N + 2 of a
 * session in its steady state. Running 10,000 turns to get there would
 * take minutes on an engine whose turn cost grows with history, and the
 * history would grow with every iteration; a resume per iteration keeps
 * N fixed.
 *
 * @module
 */
import { createCatalog } from "../llm/create_catalog.ts";
import type { ResumeState } from "../schema/resume.ts";
import { AgentSession } from "../session/session.ts";
import { benchDeps, instantProvider } from "./_bench_util.ts";
import { answerText, questionText, syntheticHistory } from "./_long_session.ts";

const AGENT = {
  id: "bench",
  model: "claude-sonnet-4-6",
  provider: "anthropic",
  system_prompt: "You help.",
};
const CONTEXT = { workingDir: "/work", fsScopeTier: "sandboxed" as const };
const catalog = createCatalog();

let answers = 0;

/** Answers every call at once with the next answer text (no recording). */
const provider = instantProvider("anthropic", () => [
  { type: "text_delta", text: answerText(++answers) },
  {
    type: "stop",
    stopReason: "stop",
    usage: { inputTokens: 20, outputTokens: 12 },
  },
]);

/** A session resumed from `state`, idle. */
function resumed(state: ResumeState): AgentSession {
  return AgentSession.resume({
    sessionId: "long",
    agentRef: AGENT.id,
    agent: AGENT,
    context: CONTEXT,
    ...benchDeps(provider, { catalog }),
  }, state);
}

for (const turns of [100, 1_000, 10_000]) {
  const history = syntheticHistory(turns);
  Deno.bench({
    name: `turn at ${turns.toLocaleString("en-US")} turns of history`,
    group: "long",
    baseline: turns === 100,
    // ~14 samples by default at 10,000 turns (~50 ms each): take 30.
    ...(turns === 10_000 ? { n: 30, warmup: 3 } : {}),
    async fn(b) {
      const session = resumed(history);
      await session.sendMessage(questionText(turns + 1));
      b.start();
      const result = await session.sendMessage(questionText(turns + 2));
      b.end();
      if (result.kind !== "completed" || session.turnCount !== turns + 2) {
        throw new Error(`turn did not complete: ${result.kind}`);
      }
    },
  });
}
