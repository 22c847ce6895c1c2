/**
 * Zod schemas and the types checked against them: agents, contexts,
 * durable messages, events, resume state, typed results.
 *
 * @example Validate an agent
 * ```ts
 * import { parseAgent } from "@relavium/session/schema";
 * import assert from "node:assert/strict";
 * const r = parseAgent({ id: "mini", model: "gpt-5.4-mini", provider: "openai", system_prompt: "Be terse." }, "mini.agent.yaml");
 * assert.equal(r.ok, true);
 * ```
 *
 * @module
 */
export * from "./result.ts";
export * from "./issues.ts";
export * from "./agent.ts";
export * from "./context.ts";
export * from "./message.ts";
export * from "./event.ts";
export * from "./resume.ts";
