/**
 * The Anthropic Messages adapter: our own `fetch` + SSE code
 * over the provider seam, no vendor SDK.
 *
 * @module
 */
import type { StreamChunk } from "../chunk.ts";
import type { LlmProvider, LlmRequest, ProviderSupports } from "../provider.ts";
import type { ModelCatalog } from "../catalog.ts";
import type { HttpProviderOptions } from "../http.ts";
import { endpointFace, resolveEndpoint } from "../_endpoint.ts";
import { createCatalog } from "../create_catalog.ts";
import { makeLlmError } from "../errors.ts";
import { finishError } from "../_http_errors.ts";
import { keyRedactor } from "../_http_open.ts";
import { singleChunk, streamHttp, transportOf } from "../_http_stream.ts";
import { streamLimits } from "../stream_limits.ts";
import { classifyAnthropicError } from "./_errors.ts";
import { createAnthropicMapper } from "./_map_stream.ts";
import { buildAnthropicBody } from "./_request_body.ts";
import { cacheTtlOf, withCacheBreakpoints } from "./_cache_control.ts";

/**
 * The official Anthropic base URL (without the version).
 */
export const ANTHROPIC_BASE_URL: string = "https://api.anthropic.com";

/**
 * The `anthropic-version` header every request carries.
 */
export const ANTHROPIC_VERSION: string = "2023-06-01";

/**
 * Options of {@linkcode createAnthropicProvider}.
 */
export interface AnthropicProviderOptions extends HttpProviderOptions {
  /** Provider id; default `"anthropic"` (a `[[providers]]` id otherwise). */
  id?: string;
}

const DEFAULT_SUPPORTS: ProviderSupports = {
  tools: true,
  streaming: true,
  parallelToolCalls: true,
  reasoning: true,
  promptCache: true,
};

/**
 * Creates the Anthropic Messages provider. Each `stream` call POSTs
 * `{base}/v1/messages` with `x-api-key` (omitted when the key is empty),
 * `anthropic-version: 2023-06-01` and `content-type: application/json`,
 * never following a redirect, and maps the SSE stream to chunks.
 * Failures are one classified `error` chunk; provider
 * text stays in `LlmError.message`, scrubbed and with the key removed.
 * `contextLimit` comes from the catalog on the official endpoint and is
 * unknown on a custom one. Prompt caching is on unless `promptCaching` is
 * `false`: breakpoints on the last tool, the system prompt and the last
 * two messages, never more than four.
 *
 * @param options Transport, base URL, id, catalog, clock, capabilities,
 *   prompt caching.
 * @returns The provider.
 * @throws {TypeError} When `fetch` is not a function or `baseUrl` is not a
 *   URL.
 * @throws {RangeError} When a timeout or the response size bound is not a
 *   positive integer.
 */
export function createAnthropicProvider(
  options: AnthropicProviderOptions,
): LlmProvider {
  const id = options.id ?? "anthropic";
  const { base, custom } = resolveEndpoint(options, ANTHROPIC_BASE_URL);
  const catalog: ModelCatalog = options.catalog ?? createCatalog();
  const limits = streamLimits(options);
  const url = `${base}/v1/messages`;
  const supports: ProviderSupports = {
    ...DEFAULT_SUPPORTS,
    ...options.supports,
  };

  const cacheTtl = cacheTtlOf(options.promptCaching);

  function stream(req: LlmRequest, key: string): AsyncIterable<StreamChunk> {
    const body = buildAnthropicBody(req, catalog);
    if (!body.ok) {
      const error = makeLlmError("bad_request", id, body.error);
      return singleChunk({ type: "error", error });
    }
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "anthropic-version": ANTHROPIC_VERSION,
    };
    if (key !== "") headers["x-api-key"] = key;
    const redact = keyRedactor(key);
    const mapper = createAnthropicMapper(id, (data, text) => {
      const c = classifyAnthropicError(undefined, data, text);
      return finishError(id, { ...c, message: redact(c.message) }, {
        customEndpoint: custom,
      });
    });
    return streamHttp({
      provider: id,
      ...transportOf(options),
      url,
      headers,
      body: JSON.stringify(withCacheBreakpoints(body.value, cacheTtl)),
      signal: req.signal,
      redact,
      mapper,
      classify: classifyAnthropicError,
      customEndpoint: custom,
      limits,
    });
  }

  return {
    id,
    kind: "anthropic",
    supports,
    stream,
    ...endpointFace(catalog, custom, options.contextWindow),
  };
}
