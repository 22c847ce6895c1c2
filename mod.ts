/**
 * `@relavium/session`: a Deno-first agent-session engine. One
 * `AgentSession` binds one agent for a multi-turn conversation; the host
 * persists every completed turn atomically; sessions resume exactly and
 * export to a reviewable workflow file.
 *
 * Subpaths: `./session` (engine), `./llm` (provider seam, chain, catalog,
 * scripted and replay providers), `./store` (SQLite and memory stores),
 * `./host` (joining a session to a store), `./export` (workflow export),
 * `./tools` (tool seam and built-ins), `./schema` (validated shapes).
 *
 * @example Open a persisted session and read its events
 * ```ts
 * import { createMemoryStore, createScriptedProvider, openSession } from "@relavium/session";
 * import assert from "node:assert/strict";
 *
 * const provider = createScriptedProvider({ id: "openai", script: [[
 *   { type: "text_delta", text: "Hello!" },
 *   { type: "stop", stopReason: "stop", usage: { inputTokens: 3, outputTokens: 1 } },
 * ]] });
 * const live = openSession({
 *   store: createMemoryStore(), clock: { now: () => 0 }, ids: () => "s1",
 *   agent: { id: "mini", model: "gpt-5.4-mini", provider: "openai", system_prompt: "Be terse." },
 *   context: { workingDir: "/tmp", fsScopeTier: "sandboxed" },
 *   deps: { resolveProvider: () => provider, keyFor: () => "", sleep: () => Promise.resolve() },
 * });
 * await live.session.sendMessage("Hi");
 * live.close();
 * const types: string[] = [];
 * for await (const event of live.events) types.push(event.type);
 * assert.deepEqual(types, [
 *   "session:started", "session:turn_started", "agent:token",
 *   "cost:updated", "session:turn_completed", "session:cancelled",
 * ]);
 * ```
 *
 * @module
 */
export * from "./schema/mod.ts";
export * from "./session/mod.ts";
export * from "./llm/mod.ts";
export * from "./store/mod.ts";
export * from "./host/mod.ts";
export * from "./export/mod.ts";
export * from "./tools/mod.ts";
