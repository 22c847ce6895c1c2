/**
 * The shipped HTTP adapters by built-in provider id.
 *
 * @module
 */
import type { ModelCatalog } from "./catalog.ts";
import type { FetchFn } from "./http.ts";
import type { LlmProvider } from "./provider.ts";
import { createProviderRegistry } from "./provider_registry.ts";
import { isBuiltInProvider } from "./provider_table.ts";

/**
 * The provider ids {@linkcode createBuiltinProvider} knows.
 */
export type BuiltinProviderId = "openai" | "anthropic" | "deepseek" | "gemini";

/**
 * Options of {@linkcode createBuiltinProvider}.
 */
export interface BuiltinProviderOptions {
  /** The transport. */
  fetch: FetchFn;
  /** Windows, output ceilings and reasoning flags; default the bundled one. */
  catalog?: ModelCatalog;
  /** Epoch ms, to read `retry-after` HTTP dates. */
  now?: () => number;
  /** Another endpoint of the same API (then a custom endpoint). */
  baseUrl?: string;
  /** First-byte timeout in ms (default 60 000); see the adapters. */
  firstByteTimeoutMs?: number;
  /** Idle-stream timeout in ms (default 300 000); see the adapters. */
  idleTimeoutMs?: number;
  /** Most bytes of one response (default 64 MiB); see the adapters. */
  maxResponseBytes?: number;
  /** Anthropic prompt caching (default on, 5 minutes; `false` = off). */
  promptCaching?: boolean | "5m" | "1h";
}

/**
 * Builds the shipped adapter of a built-in provider id: `openai` and
 * `deepseek` (OpenAI-compatible chat completions), `anthropic` (Messages
 * API) and `gemini` (native `streamGenerateContent`). Each adapter module
 * loads on its first call. For your own endpoints, see
 * `createProviderRegistry`.
 *
 * @param id A provider id.
 * @param options Transport, catalog, clock and an optional base URL.
 * @returns The adapter, or `undefined` for an id without a shipped one.
 *
 * @example Build three
 * ```ts
 * import { createBuiltinProvider } from "@relavium/session/llm";
 * import assert from "node:assert/strict";
 * assert.equal(createBuiltinProvider("anthropic", { fetch })?.kind, "anthropic");
 * assert.equal(createBuiltinProvider("openai", { fetch })?.kind, "openai-compatible");
 * assert.equal(createBuiltinProvider("gemini", { fetch })?.kind, "gemini");
 * assert.equal(createBuiltinProvider("mistral", { fetch }), undefined);
 * ```
 */
export function createBuiltinProvider(
  id: string,
  options: BuiltinProviderOptions,
): LlmProvider | undefined {
  if (!isBuiltInProvider(id)) return undefined;
  const { baseUrl, ...deps } = options;
  const registry = createProviderRegistry(
    baseUrl === undefined ? [] : [{ id, baseUrl }],
  );
  return registry.create(id, deps);
}
