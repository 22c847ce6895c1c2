/**
 * The synthetic long conversation shared by `bench/long_session_bench.ts`
 * (engine, seeded through a `ResumeState`) and `bench/long_chat.ts` (the
 * CLI, driven through stdin and a cassette): the same question and answer
 * texts for turn `n`, so the two figures measure the same transcript.
 *
 * @module
 */
import type { ResumeState } from "../schema/resume.ts";

/** The user's line of turn `n` (1-based), ~45 characters. */
export function questionText(n: number): string {
  return `Question ${n}: what is the next step of the plan?`;
}

/** The model's answer of turn `n` (1-based), ~60 characters. */
export function answerText(n: number): string {
  return `Answer ${n}: write the test first, then make it pass.`;
}

/**
 * A resume state holding `turns` completed text turns (user + answer,
 * one span each) and no spend: the history a session has after `turns`
 * turns of the long chat, without running them.
 *
 * @param turns Completed turns of history.
 * @returns The state to pass to `AgentSession.resume`.
 */
export function syntheticHistory(turns: number): ResumeState {
  const messages: ResumeState["messages"] = [];
  const spans: ResumeState["completedTurnSpans"] = [];
  for (let n = 1; n <= turns; n++) {
    spans.push({ start: messages.length, end: messages.length + 2 });
    messages.push({
      role: "user",
      content: [{ type: "text", text: questionText(n) }],
    });
    messages.push({
      role: "assistant",
      content: [{ type: "text", text: answerText(n) }],
    });
  }
  return {
    messages,
    completedTurnSpans: spans,
    turnCount: turns,
    cumulativeCostMicrocents: 0,
    conservativeCostMicrocents: 0,
  };
}
