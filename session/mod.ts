/**
 * The engine, for writing a host of your own: `AgentSession`, its states,
 * its effects, settings and hooks, the turn result and the finished work
 * it hands over. It never touches storage, files, env or the clock
 * directly: everything comes in through {@linkcode SessionEffects}, and
 * each finished turn goes out as a value through
 * {@linkcode SessionHooks}' `commit` (events are for observers).
 *
 * @example One scripted turn, committed as a value
 * ```ts
 * import { AgentSession, type FinishedWork } from "@relavium/session/session";
 * import { createScriptedProvider } from "@relavium/session/llm";
 * import assert from "node:assert/strict";
 * const provider = createScriptedProvider({ id: "openai", script: [[
 *   { type: "text_delta", text: "Hi" },
 *   { type: "stop", stopReason: "stop", usage: { inputTokens: 1, outputTokens: 1 } },
 * ]] });
 * const committed: FinishedWork[] = [];
 * const session = new AgentSession({
 *   sessionId: "s", agentRef: "mini",
 *   agent: { id: "mini", model: "gpt-5.4-mini", provider: "openai", system_prompt: "Be terse." },
 *   context: { workingDir: "/tmp", fsScopeTier: "sandboxed" },
 *   effects: { clock: { now: () => 0 }, ids: () => "x", resolveProvider: () => provider,
 *     keyFor: () => "", sleep: () => Promise.resolve() },
 *   settings: { maxTurns: 10 },
 *   hooks: { emit: () => {}, commit: (work) => committed.push(work) },
 * });
 * session.start();
 * const result = await session.sendMessage("Hello");
 * assert.deepEqual([result.kind, result.text], ["completed", "Hi"]);
 * assert.equal(committed.length, 1);
 * const work = committed[0];
 * assert.ok(work?.kind === "turn");
 * assert.deepEqual([work.turn.userText, work.turn.finalText, work.turnsUsed], ["Hello", "Hi", 1]);
 * ```
 *
 * @module
 */
export {
  AgentSession,
  type AgentSessionParams,
  type SessionState,
} from "./session.ts";
export type { Transcript } from "./session_types.ts";
export type {
  ApprovalRequest,
  EgressDecision,
  ToolCall,
  ToolDispatchContext,
  ToolOutcome,
  ToolRegistry,
  TurnPolicy,
  UserCommandOutcome,
} from "../tools/registry.ts";
export type { TurnResult } from "./turn_result.ts";
export type {
  EgressAttempt,
  SessionEffects,
  SessionHooks,
  SessionSettings,
} from "./deps.ts";
export type { FinishedWork } from "./finished_work.ts";
export { SessionStateError, type SessionStateErrorCode } from "./errors.ts";
export type { BudgetNotice, BudgetPolicy, OnExceed } from "./budget.ts";
export type { CompactionStart } from "./deps.ts";
export type {
  CompactionResult,
  MemoryPolicyRefusal,
  TrimResult,
} from "./memory_policy.ts";

// The types the signatures above refer to, so this entry point documents
// them too.
export type { ModelCatalog, ModelInfo } from "../llm/catalog.ts";
export type {
  LlmError,
  LlmErrorKind,
  StopReason,
  StreamChunk,
  Usage,
} from "../llm/chunk.ts";
export type {
  ContentPart,
  LlmMessage,
  LlmProvider,
  LlmRequest,
  ProviderSupports,
  ToolDef,
} from "../llm/provider.ts";
export type {
  Agent,
  AgentMemory,
  AgentRetry,
  FallbackEntry,
  McpServer,
  ReasoningEffort,
} from "../schema/agent.ts";
export type { FsScopeTier, SessionContext } from "../schema/context.ts";
export type {
  CompactionReason,
  ErrorCode,
  GovernedAction,
  SessionError,
  SessionEventDraft,
  TokensUsed,
  ToolHistoryEntry,
  TurnStopReason,
} from "../schema/event.ts";
export type {
  MediaHandle,
  SessionToolCallPart,
  SessionToolMedia,
  SessionToolResultPart,
  ToolResultOutcome,
} from "../schema/message.ts";
export type { TurnSpan, WorkingMessage } from "../schema/resume.ts";
export type {
  BoundaryMarker,
  CostEntry,
  ToolRound,
  TurnCommit,
} from "../schema/turn.ts";
