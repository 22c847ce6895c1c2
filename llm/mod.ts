/**
 * The provider seam: request and chunk types, errors, the fallback chain,
 * the model catalog and the scripted and replay providers.
 *
 * @example A chunk
 * ```ts
 * import { streamChunkSchema } from "@relavium/session/llm";
 * import assert from "node:assert/strict";
 * assert.ok(streamChunkSchema.safeParse({ type: "text_delta", text: "hi" }).success);
 * ```
 *
 * @module
 */
export * from "./chunk.ts";
export * from "./provider.ts";
export * from "./catalog.ts";
export * from "./chain.ts";
