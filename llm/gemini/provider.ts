/**
 * The native Gemini adapter (`streamGenerateContent` over SSE): the
 * built-in `gemini` provider and `[[providers]] kind = "gemini"`
 * endpoints.
 *
 * @module
 */
import type { StreamChunk } from "../chunk.ts";
import type { LlmProvider, LlmRequest, ProviderSupports } from "../provider.ts";
import type { ModelCatalog } from "../catalog.ts";
import type { HttpProviderOptions } from "../http.ts";
import { createCatalog } from "../create_catalog.ts";
import { streamLimits } from "../_watchdog.ts";
import { contextLimitOf, resolveEndpoint } from "../_endpoint.ts";

/**
 * The official Gemini API base URL (with the version).
 */
export const GEMINI_BASE_URL: string =
  "https://generativelanguage.googleapis.com/v1beta";

/**
 * Options of {@linkcode createGeminiProvider}.
 */
export interface GeminiProviderOptions extends HttpProviderOptions {
  /** Provider id: `gemini` (default) or a `[[providers]]` id. */
  id?: string;
}

/**
 * Creates a Gemini provider. Each `stream` call POSTs
 * `{base}/models/<model>:streamGenerateContent?alt=sse` with the key in
 * `x-goog-api-key` (never in the URL; omitted when empty, as for a local
 * server), never following a redirect, and maps the SSE stream to chunks;
 * a failure is one classified `error` chunk. The request and stream code
 * loads on the first call. A base URL other than the
 * official one makes a custom endpoint (overflows downgraded, window
 * unknown unless declared, no reasoning capability unless given).
 *
 * @param options Id, transport, base URL, catalog, bounds.
 * @returns The provider.
 * @throws {TypeError} When `fetch` is not a function or `baseUrl` is not a
 *   URL.
 * @throws {RangeError} When a timeout or the response bound is not a
 *   positive integer.
 */
export function createGeminiProvider(
  options: GeminiProviderOptions,
): LlmProvider {
  const id = options.id ?? "gemini";
  const { base, custom } = resolveEndpoint(options, GEMINI_BASE_URL);
  const catalog: ModelCatalog = options.catalog ?? createCatalog();
  const limits = streamLimits(options);
  const supports: ProviderSupports = {
    tools: true,
    streaming: true,
    parallelToolCalls: true,
    reasoning: !custom,
    promptCache: !custom,
    ...options.supports,
  };

  const ctx = { id, base, custom, catalog, limits, options };
  // The call's machinery loads on the first call: a session that never
  // calls Gemini never loads it.
  async function* stream(
    req: LlmRequest,
    key: string,
  ): AsyncGenerator<StreamChunk> {
    const { streamGemini } = await import("./_stream.ts");
    yield* streamGemini(ctx, req, key);
  }

  return {
    id,
    kind: "gemini",
    customEndpoint: custom,
    supports,
    stream,
    contextLimit: contextLimitOf(catalog, custom, options.contextWindow),
    ...(options.contextWindow !== undefined && options.contextWindow > 0
      ? { windowDeclared: true }
      : {}),
  };
}
