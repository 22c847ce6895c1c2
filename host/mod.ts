/**
 * The persisted host: the one place that joins a session to a store, and
 * the runtime of real effects it runs on.
 *
 * @example Open a session, send a turn, read its result
 * ```ts
 * import { denoRuntime, openSession } from "@relavium/session/host";
 * import { parseCassette } from "@relavium/session/llm";
 * import { createMemoryStore } from "@relavium/session/store";
 * import assert from "node:assert/strict";
 * const cassette = parseCassette(JSON.stringify({ schema_version: "1.0", provider: "openai", calls: [[
 *   { type: "text_delta", text: "Hi!" },
 *   { type: "stop", stopReason: "stop", usage: { inputTokens: 2, outputTokens: 1 } },
 * ]] }), "hi.json");
 * assert.ok(cassette.ok);
 * using live = openSession({
 *   store: createMemoryStore(), runtime: denoRuntime({ cassette: cassette.value }),
 *   agent: { id: "mini", model: "gpt-5.4-mini", provider: "openai", system_prompt: "Be terse." },
 * });
 * const result = await live.session.sendMessage("Hello");
 * assert.equal(result.text, "Hi!");
 * assert.equal(live.session.turnCount, 1);
 * ```
 *
 * @module
 */
export {
  type HostOptions,
  openSession,
  type OpenSessionOptions,
  type PersistedSession,
  type ResumeError,
  resumeSession,
  type ResumeSessionOptions,
} from "./host.ts";
export { EventChannel } from "./event_channel.ts";
// The lease a refused resume names (also on `./store`).
export type {
  AgentSessionRecord,
  AsyncSessionStore,
  BoundaryMarker,
  CostEntry,
  LoadedSession,
  ModelCostTotals,
  NewSession,
  SessionLease,
  SessionStatus,
  SessionStore,
  ToolRound,
  TurnCommit,
} from "../store/store.ts";
export { InvalidAgentError, InvalidFileError } from "./errors.ts";
export { loadAgentFile } from "./agent_file.ts";
export type {
  CompactionStart,
  EgressAttempt,
  SessionHooks,
  SessionSettings,
} from "../session/deps.ts";
export {
  denoRuntime,
  type DenoRuntimeOptions,
  loadCassette,
  type SessionRuntime,
} from "./runtime.ts";
// The entries and settings `denoRuntime` takes (also on `./llm`).
export type {
  AdapterSettings,
  ProviderEntry,
} from "../llm/provider_registry.ts";
export type { ProviderKind } from "../llm/provider_table.ts";

// The types the signatures above refer to, so this entry point documents
// them too.
export type { Cassette } from "../llm/cassette.ts";
export type { ModelCatalog, ModelInfo } from "../llm/catalog.ts";
export type {
  LlmError,
  LlmErrorKind,
  StopReason,
  StreamChunk,
  Usage,
} from "../llm/chunk.ts";
export type { FetchFn } from "../llm/http.ts";
export type { EnvReader } from "../llm/keys.ts";
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
  SessionEnvelope,
  SessionError,
  SessionEvent,
  SessionEventDraft,
  TokensUsed,
  ToolHistoryEntry,
  TurnStopReason,
} from "../schema/event.ts";
export type { ValidationIssue } from "../schema/issues.ts";
export type {
  MediaHandle,
  SessionContentPart,
  SessionMediaPart,
  SessionMessage,
  SessionReasoningPart,
  SessionRole,
  SessionTextPart,
  SessionToolCallPart,
  SessionToolMedia,
  SessionToolResultPart,
  ToolResultOutcome,
} from "../schema/message.ts";
export type { Result } from "../schema/result.ts";
export type { TurnSpan, WorkingMessage } from "../schema/resume.ts";
export type {
  BudgetNotice,
  BudgetPolicy,
  OnExceed,
} from "../session/budget.ts";
export type { FinishedWork } from "../session/finished_work.ts";
export type {
  CompactionResult,
  MemoryPolicyRefusal,
  TrimResult,
} from "../session/memory_policy.ts";
export type { AgentSession } from "../session/session.ts";
export type { SessionState, Transcript } from "../session/session_types.ts";
export type { TurnResult } from "../session/turn_result.ts";
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
