/**
 * The OpenAI Responses API adapter (`POST {base}/responses`, streamed):
 * the built-in `openai` provider's route for models that take tool calls
 * only there, and `[[providers]] kind = "openai-responses"` endpoints.
 *
 * @module
 */
import type { StreamChunk } from "../chunk.ts";
import type { LlmProvider, LlmRequest, ProviderSupports } from "../provider.ts";
import type { ModelCatalog } from "../catalog.ts";
import type { HttpProviderOptions } from "../http.ts";
import { endpointFace, httpSupports, resolveEndpoint } from "../_endpoint.ts";
import { createCatalog } from "../create_catalog.ts";
import { keyRedactor } from "../_http_open.ts";
import { streamHttp, transportOf } from "../_http_stream.ts";
import { streamLimits } from "../stream_limits.ts";
import { classifyOpenAiError } from "../openai/_errors.ts";
import { buildResponsesBody } from "./_request_body.ts";
import { createResponsesMapper } from "./_map_stream.ts";
import { RESPONSES_BASE_URL } from "./_base.ts";

/**
 * Options of {@linkcode createOpenAiResponsesProvider}.
 */
export interface OpenAiResponsesProviderOptions extends HttpProviderOptions {
  /** Provider id: `openai` (default) or a `[[providers]]` id. */
  id?: string;
}

/**
 * Creates a Responses API provider. Each `stream` call POSTs
 * `{base}/responses` with `Authorization: Bearer <key>` (none when the key
 * is empty), `stream: true` and `store: false`, never following a
 * redirect, and maps the event stream to chunks; a failure is one
 * classified `error` chunk (the error bodies are Chat Completions', so
 * their classification is shared). A base URL other than the official one
 * makes a custom endpoint.
 *
 * @param options Id, transport, base URL (with the version), catalog,
 *   bounds.
 * @returns The provider.
 * @throws {TypeError} When `fetch` is not a function or `baseUrl` is not a
 *   URL.
 * @throws {RangeError} When a timeout or the response bound is not a
 *   positive integer.
 */
export function createOpenAiResponsesProvider(
  options: OpenAiResponsesProviderOptions,
): LlmProvider {
  const id = options.id ?? "openai";
  const { base, custom } = resolveEndpoint(options, RESPONSES_BASE_URL);
  const catalog: ModelCatalog = options.catalog ?? createCatalog();
  const limits = streamLimits(options);
  const supports: ProviderSupports = {
    ...httpSupports(custom),
    ...options.supports,
  };

  function stream(req: LlmRequest, key: string): AsyncIterable<StreamChunk> {
    const headers: Record<string, string> = {
      "content-type": "application/json",
    };
    if (key !== "") headers.authorization = `Bearer ${key}`;
    const redact = keyRedactor(key);
    return streamHttp({
      provider: id,
      ...transportOf(options),
      url: `${base}/responses`,
      headers,
      body: JSON.stringify(buildResponsesBody(req, catalog.lookup(req.model))),
      signal: req.signal,
      redact,
      mapper: createResponsesMapper(id, redact),
      classify: (status, parsed, text) =>
        classifyOpenAiError("openai", status, parsed, text),
      customEndpoint: custom,
      limits,
    });
  }

  return {
    id,
    kind: "openai-compatible",
    supports,
    stream,
    ...endpointFace(catalog, custom, options.contextWindow),
  };
}
