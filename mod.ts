/**
 * `@relavium/session`: a Deno-first agent-session engine.
 *
 * @example Validate an agent
 * ```ts
 * import { parseAgent } from "@relavium/session";
 * import assert from "node:assert/strict";
 * assert.equal(parseAgent({ id: "a", model: "m", provider: "openai", system_prompt: "s" }, "a.agent.yaml").ok, true);
 * ```
 *
 * @module
 */
export * from "./schema/mod.ts";
