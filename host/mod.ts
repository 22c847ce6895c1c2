/**
 * The persisted host: the one place that joins a session to a store.
 *
 * @example Open a persisted session in five lines
 * ```ts
 * import { openSession } from "@relavium/session/host";
 * import { createMemoryStore } from "@relavium/session/store";
 * import { createScriptedProvider } from "@relavium/session/llm";
 * import assert from "node:assert/strict";
 * const provider = createScriptedProvider({ id: "openai", script: [[
 *   { type: "text_delta", text: "Hi!" },
 *   { type: "stop", stopReason: "stop", usage: { inputTokens: 2, outputTokens: 1 } },
 * ]] });
 * const live = openSession({
 *   store: createMemoryStore(), clock: { now: () => 0 }, ids: () => "s1",
 *   agent: { id: "mini", model: "gpt-5.4-mini", provider: "openai", system_prompt: "Be terse." },
 *   context: { workingDir: "/tmp", fsScopeTier: "sandboxed" },
 *   deps: { resolveProvider: () => provider, keyFor: () => "", sleep: () => Promise.resolve() },
 * });
 * await live.session.sendMessage("Hello");
 * assert.equal(live.session.turnCount, 1);
 * ```
 *
 * @module
 */
export {
  type HostOptions,
  type HostSessionDeps,
  openSession,
  type OpenSessionOptions,
  type PersistedSession,
  type ResumeError,
  resumeSession,
  type ResumeSessionOptions,
} from "./host.ts";
export {
  createTurnWriter,
  type TurnWriter,
  type TurnWriterOptions,
} from "./turn_writer.ts";
