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
export type { SessionLease } from "../store/store.ts";
export { InvalidAgentError, InvalidFileError } from "./errors.ts";
export { loadAgentFile } from "./agent_file.ts";
export type { SessionSettings } from "../session/deps.ts";
export {
  denoRuntime,
  type DenoRuntimeOptions,
  loadCassette,
  type SessionRuntime,
} from "./runtime.ts";
