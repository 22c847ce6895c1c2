/**
 * The engine, for writing a host of your own: `AgentSession`, its states
 * and deps, the turn result, and event stamping. It never touches
 * storage, files, env or the clock directly: everything comes in through
 * {@linkcode SessionDeps}.
 *
 * @example One scripted turn
 * ```ts
 * import { AgentSession } from "@relavium/session/session";
 * import { createScriptedProvider } from "@relavium/session/llm";
 * import assert from "node:assert/strict";
 * const provider = createScriptedProvider({ id: "openai", script: [[
 *   { type: "text_delta", text: "Hi" },
 *   { type: "stop", stopReason: "stop", usage: { inputTokens: 1, outputTokens: 1 } },
 * ]] });
 * const session = new AgentSession({
 *   sessionId: "s", agentRef: "mini",
 *   agent: { id: "mini", model: "gpt-5.4-mini", provider: "openai", system_prompt: "Be terse." },
 *   context: { workingDir: "/tmp", fsScopeTier: "sandboxed" },
 *   deps: { clock: { now: () => 0 }, ids: () => "x", resolveProvider: () => provider,
 *     keyFor: () => "", sleep: () => Promise.resolve(), emit: () => {} },
 * });
 * session.start();
 * const result = await session.sendMessage("Hello");
 * assert.equal(result.kind, "completed");
 * assert.equal(result.text, "Hi");
 * assert.equal(session.transcript.messages.length, 2);
 * ```
 *
 * @module
 */
export {
  AgentSession,
  type AgentSessionParams,
  type CompletedExchange,
  type SessionState,
} from "./session.ts";
export type { Transcript } from "./session_types.ts";
export type { EgressDecision, UserCommandOutcome } from "../tools/registry.ts";
export type { TurnResult } from "./turn_result.ts";
export type { Clock, EgressAttempt, IdSource, SessionDeps } from "./deps.ts";
export { SessionStateError, type SessionStateErrorCode } from "./errors.ts";
export type { BudgetNotice, BudgetPolicy, OnExceed } from "./budget.ts";
export type { CompactionStart } from "./compaction_run.ts";
export type {
  CompactionResult,
  MemoryPolicyRefusal,
  TrimResult,
} from "./memory_policy.ts";
