/**
 * The native Gemini adapter (`streamGenerateContent` over SSE): our own
 * `fetch` + SSE code over the provider seam, no vendor SDK.
 *
 * @module
 */
import type { StreamChunk } from "../chunk.ts";
import type { LlmProvider, LlmRequest, ProviderSupports } from "../provider.ts";
import type { ModelCatalog } from "../catalog.ts";
import type { HttpProviderOptions } from "../http.ts";
import { endpointFace, resolveEndpoint } from "../_endpoint.ts";
import { createCatalog } from "../create_catalog.ts";
import { finishError } from "../_http_errors.ts";
import { keyRedactor } from "../_http_open.ts";
import { streamHttp, transportOf } from "../_http_stream.ts";
import { streamLimits } from "../stream_limits.ts";
import { classifyGeminiError } from "./_errors.ts";
import { createGeminiMapper } from "./_map_stream.ts";
import { buildGeminiBody } from "./_request_body.ts";
import { GEMINI_BASE_URL, GEMINI_SUPPORTS } from "./_base_url.ts";

export { GEMINI_BASE_URL } from "./_base_url.ts";

/**
 * Options of {@linkcode createGeminiProvider}.
 */
export interface GeminiProviderOptions extends HttpProviderOptions {
  /** Provider id; default `"gemini"` (a `[[providers]]` id otherwise). */
  id?: string;
}

/**
 * Creates the Gemini provider. Each `stream` call POSTs
 * `{base}/models/<model>:streamGenerateContent?alt=sse` (the model id
 * URL-encoded) with the key in `x-goog-api-key` (never in the URL;
 * omitted when the key is empty) and `content-type: application/json`,
 * never following a redirect, and maps the SSE stream to chunks.
 * Failures are one classified `error` chunk, provider text scrubbed and
 * the key removed; a 429's `RetryInfo` delay becomes `retryAfterMs`.
 * `contextLimit` comes from the catalog on the official endpoint and is
 * unknown on a custom one (unless `contextWindow` declares it). Gemini
 * caches prompts on its own: `promptCaching` is ignored.
 *
 * @param options Transport, base URL (up to the API version), id,
 *   catalog, clock, capabilities, stream bounds.
 * @returns The provider.
 * @throws {TypeError} When `fetch` is not a function or `baseUrl` is not a
 *   URL.
 * @throws {RangeError} When a timeout or the response size bound is not a
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
    ...GEMINI_SUPPORTS,
    ...options.supports,
  };

  function stream(req: LlmRequest, key: string): AsyncIterable<StreamChunk> {
    const body = buildGeminiBody(req, catalog);
    const headers: Record<string, string> = {
      "content-type": "application/json",
    };
    if (key !== "") headers["x-goog-api-key"] = key;
    const redact = keyRedactor(key);
    const mapper = createGeminiMapper(id, (data, text) => {
      const c = classifyGeminiError(undefined, data, text);
      return finishError(id, { ...c, message: redact(c.message) }, {
        customEndpoint: custom,
      });
    });
    return streamHttp({
      provider: id,
      ...transportOf(options),
      url: `${base}/models/${
        encodeURIComponent(req.model)
      }:streamGenerateContent?alt=sse`,
      headers,
      body: JSON.stringify(body),
      signal: req.signal,
      redact,
      mapper,
      classify: classifyGeminiError,
      customEndpoint: custom,
      limits,
    });
  }

  return {
    id,
    kind: "gemini",
    supports,
    stream,
    ...endpointFace(catalog, custom, options.contextWindow),
  };
}
