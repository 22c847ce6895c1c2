/**
 * `@relavium/session`: a Deno-first agent-session engine. One
 * `AgentSession` binds one agent for a multi-turn conversation; the host
 * persists every completed turn atomically; sessions resume exactly and
 * export to a reviewable workflow file.
 *
 * Start with {@linkcode openSession}: a store, a runtime of real effects
 * ({@linkcode denoRuntime}: clock, ids, abortable sleep, `fetch`, the
 * bundled catalog; keys only from the env you pass) and an agent.
 * `sendMessage` resolves with a {@linkcode TurnResult}; every event of the
 * session arrives on one bounded channel, `events`.
 *
 * Subpaths hold the seams and the machinery: `./session` (engine),
 * `./llm` (writing a provider, chain, catalog, cassettes, the built-in and
 * scripted providers, key lookup), `./store` (writing a store), `./host`,
 * `./tools` (writing a tool), `./export` (session → workflow), `./schema`.
 *
 * @example Stream one turn, then read its result
 * ```ts
 * import { createMemoryStore, denoRuntime, openSession, parseCassette } from "@relavium/session";
 * import assert from "node:assert/strict";
 *
 * // A recorded reply, so this runs offline; drop `cassette` to call OpenAI
 * // with the key in OPENAI_API_KEY (pass `env: Deno.env`).
 * const cassette = parseCassette(JSON.stringify({ schema_version: "1.0", provider: "openai", calls: [[
 *   { type: "text_delta", text: "Hello" }, { type: "text_delta", text: "!" },
 *   { type: "stop", stopReason: "stop", usage: { inputTokens: 12, outputTokens: 2 } },
 * ]] }), "hello.json");
 * assert.ok(cassette.ok);
 *
 * using live = openSession({
 *   store: createMemoryStore(),
 *   runtime: denoRuntime({ cassette: cassette.value }),
 *   agent: { id: "guide", model: "gpt-5.4-mini", provider: "openai", system_prompt: "Be brief." },
 * });
 * const turn = live.session.sendMessage("Hi");
 * let streamed = "";
 * for await (const event of live.events) {
 *   if (event.type === "agent:token") streamed += event.token;
 *   if (event.type === "session:turn_completed") break;
 * }
 * const result = await turn;
 * assert.equal(streamed, "Hello!");
 * assert.equal(result.kind, "completed");
 * assert.equal(result.text, "Hello!");
 * assert.ok(result.costMicrocents > 0);
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
} from "./host/host.ts";
export { EventChannel } from "./host/event_channel.ts";
export { InvalidAgentError, InvalidFileError } from "./host/errors.ts";
export { loadAgentFile } from "./host/agent_file.ts";
export type {
  CompactionStart,
  EgressAttempt,
  SessionHooks,
  SessionSettings,
} from "./session/deps.ts";
export {
  denoRuntime,
  type DenoRuntimeOptions,
  loadCassette,
  type SessionRuntime,
} from "./host/runtime.ts";
export { AgentSession, type SessionState } from "./session/session.ts";
export {
  SessionStateError,
  type SessionStateErrorCode,
} from "./session/errors.ts";
export {
  type Agent,
  type AgentLoadError,
  type AgentMemory,
  type AgentRetry,
  type FallbackEntry,
  type McpServer,
  parseAgent,
  type ReasoningEffort,
} from "./schema/agent.ts";
export {
  type FsScopeTier,
  parseSessionContext,
  type SessionContext,
} from "./schema/context.ts";
export type {
  AgentSessionRecord,
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
} from "./store/store.ts";
export {
  openSqliteStore,
  type SqliteStoreOptions,
} from "./store/sqlite_store.ts";
export {
  createMemoryStore,
  type MemoryStore,
  type MemoryStoreOptions,
} from "./store/memory_store.ts";
export { StoreOpenError } from "./store/errors.ts";
export {
  type Cassette,
  type CassetteError,
  parseCassette,
} from "./llm/cassette.ts";
export { allBuiltinTools } from "./tools/builtin/all.ts";
export {
  createToolRegistry,
  type ScopedToolRegistry,
  type ToolRegistryOptions,
} from "./tools/registry_impl.ts";
export {
  createDenoPermissionQuery,
  createDenoToolEffects,
} from "./tools/deno/effects.ts";

// The types the signatures above refer to, so this entry point documents
// them too.
export type { ModelCatalog, ModelInfo } from "./llm/catalog.ts";
export type {
  LlmError,
  LlmErrorKind,
  StopReason,
  StreamChunk,
  Usage,
} from "./llm/chunk.ts";
export type { FetchFn } from "./llm/http.ts";
export type { EnvReader } from "./llm/keys.ts";
export type {
  ContentPart,
  LlmMessage,
  LlmProvider,
  LlmRequest,
  ProviderSupports,
  ToolDef,
} from "./llm/provider.ts";
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
} from "./schema/event.ts";
export type { ValidationIssue } from "./schema/issues.ts";
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
} from "./schema/message.ts";
export type { Result } from "./schema/result.ts";
export type { TurnSpan, WorkingMessage } from "./schema/resume.ts";
export type { BudgetNotice, BudgetPolicy, OnExceed } from "./session/budget.ts";
export type { FinishedWork } from "./session/finished_work.ts";
export type {
  CompactionResult,
  MemoryPolicyRefusal,
  TrimResult,
} from "./session/memory_policy.ts";
export type { Transcript } from "./session/session_types.ts";
export type { TurnResult } from "./session/turn_result.ts";
export type { GateRequest } from "./tools/approval.ts";
export type { UserFileResult } from "./tools/builtin/user_file.ts";
export type {
  DirEntryInfo,
  FileStat,
  HttpRequest,
  HttpResponse,
  SpawnRequest,
  SpawnResult,
  ToolEffects,
} from "./tools/effects.ts";
export type { ToolFailure } from "./tools/failure.ts";
export type {
  ApprovalRequest,
  EgressDecision,
  ToolCall,
  ToolDispatchContext,
  ToolOutcome,
  ToolRegistry,
  TurnPolicy,
  UserCommandOutcome,
} from "./tools/registry.ts";
export type { FsAccess } from "./tools/sandbox/fs_access.ts";
export type { FsScopeConfig, ScopePlan } from "./tools/sandbox/fs_scope.ts";
export type { ToolLimits } from "./tools/sandbox/limits.ts";
export type {
  PermissionQuery,
  ToolPermission,
} from "./tools/sandbox/permission_query.ts";
export type {
  PolicyTarget,
  ToolDefinition,
  ToolGuardrails,
  ToolPolicy,
  ToolRunContext,
  ToolRunResult,
} from "./tools/tool.ts";
