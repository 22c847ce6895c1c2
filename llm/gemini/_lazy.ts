/**
 * The Gemini provider loaded on first use: created (and its options
 * checked) at once, its adapter module imported by the first `stream`
 * call, so a session that never calls Gemini never loads it.
 *
 * @module
 */
import type { StreamChunk } from "../chunk.ts";
import type { LlmProvider, LlmRequest } from "../provider.ts";
import { endpointFace, resolveEndpoint } from "../_endpoint.ts";
import { createCatalog } from "../create_catalog.ts";
import { streamLimits } from "../_watchdog.ts";
import { GEMINI_BASE_URL, GEMINI_SUPPORTS } from "./_base_url.ts";
import type { GeminiProviderOptions } from "./provider.ts";

/**
 * Creates the Gemini provider of `createGeminiProvider`, its module
 * imported on the first `stream` call (once).
 *
 * @param options As for `createGeminiProvider`.
 * @returns The provider.
 * @throws {TypeError} When `fetch` is not a function or `baseUrl` is not a
 *   URL.
 * @throws {RangeError} When a timeout or the response size bound is not a
 *   positive integer.
 */
export function createLazyGeminiProvider(
  options: GeminiProviderOptions,
): LlmProvider {
  const { custom } = resolveEndpoint(options, GEMINI_BASE_URL);
  // Checked now, as the eager adapter does: a bad bound throws here.
  streamLimits(options);
  const catalog = options.catalog ?? createCatalog();
  const resolved: GeminiProviderOptions = { ...options, catalog };
  let loaded: Promise<LlmProvider> | undefined;
  async function* stream(
    req: LlmRequest,
    key: string,
  ): AsyncGenerator<StreamChunk> {
    loaded ??= import("./provider.ts").then((m) =>
      m.createGeminiProvider(resolved)
    );
    yield* (await loaded).stream(req, key);
  }
  return {
    id: options.id ?? "gemini",
    kind: "gemini",
    supports: { ...GEMINI_SUPPORTS, ...options.supports },
    stream,
    ...endpointFace(catalog, custom, options.contextWindow),
  };
}
