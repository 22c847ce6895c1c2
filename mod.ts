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
 * `./llm` (writing a provider, chain, catalog, cassettes), `./store`
 * (writing a store), `./host`, `./tools` (writing a tool), `./export`,
 * `./schema`.
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
export type { SessionSettings } from "./session/deps.ts";
export {
  denoRuntime,
  type DenoRuntimeOptions,
  loadCassette,
  type SessionRuntime,
} from "./host/runtime.ts";
export { AgentSession, type SessionState } from "./session/session.ts";
export { SessionStateError } from "./session/errors.ts";
export type { TurnResult } from "./session/turn_result.ts";
export type { BudgetPolicy } from "./session/budget.ts";
export type {
  ErrorCode,
  SessionError,
  SessionEvent,
  TokensUsed,
  TurnStopReason,
} from "./schema/event.ts";
export { type Agent, type AgentLoadError, parseAgent } from "./schema/agent.ts";
export {
  type FsScopeTier,
  parseSessionContext,
  type SessionContext,
} from "./schema/context.ts";
export type { Result } from "./schema/result.ts";
export type { ValidationIssue } from "./schema/issues.ts";
export type { SessionLease, SessionStore } from "./store/store.ts";
export {
  openSqliteStore,
  type SqliteStoreOptions,
} from "./store/sqlite_store.ts";
export { createMemoryStore } from "./store/memory_store.ts";
export { StoreOpenError } from "./store/errors.ts";
export {
  createProviderRegistry,
  type ProviderEntry,
} from "./llm/provider_registry.ts";
export { createRecorder } from "./llm/record.ts";
export { createScriptedProvider } from "./llm/scripted_provider.ts";
export { type Cassette, parseCassette } from "./llm/cassette.ts";
export type { LlmProvider } from "./llm/provider.ts";
export type { FetchFn } from "./llm/http.ts";
export type { ModelCatalog } from "./llm/catalog.ts";
export { type EnvReader, MissingKeyError } from "./llm/keys.ts";
export { allBuiltinTools } from "./tools/builtin/all.ts";
export { createToolRegistry } from "./tools/registry_impl.ts";
export type { ToolRegistry } from "./tools/registry.ts";
export {
  createDenoPermissionQuery,
  createDenoToolEffects,
} from "./tools/deno/effects.ts";
export { sessionToWorkflow } from "./export/workflow.ts";
export { stringifyWorkflow } from "./export/yaml.ts";
