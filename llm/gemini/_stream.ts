/**
 * One Gemini call, from request to chunks: the body, the headers, the
 * error classification and the stream mapping. Loaded on a provider's
 * first call, so sessions that never call Gemini never load it.
 *
 * @module
 */
import type { StreamChunk } from "../chunk.ts";
import type { LlmRequest } from "../provider.ts";
import type { ModelCatalog } from "../catalog.ts";
import type { HttpProviderOptions } from "../http.ts";
import type { StreamLimits } from "../_watchdog.ts";
import { finishError } from "../_http_errors.ts";
import { keyRedactor } from "../_http_open.ts";
import { streamHttp } from "../_http_stream.ts";
import { classifyGeminiError } from "./_errors.ts";
import { createGeminiMapper } from "./_map_stream.ts";
import { buildGeminiBody } from "./_request_body.ts";

/** What a provider fixes for all of its calls. */
export interface GeminiCallContext {
  /** The provider id. */
  id: string;
  /** The base URL, with the version. */
  base: string;
  /** Whether the endpoint is custom. */
  custom: boolean;
  /** The catalog the request is shaped by. */
  catalog: ModelCatalog;
  /** The stream bounds. */
  limits: StreamLimits;
  /** The provider's options (transport, clock, SSE bounds). */
  options: Pick<HttpProviderOptions, "fetch" | "now" | "sse">;
}

/**
 * Streams one request: POST
 * `{base}/models/<model>:streamGenerateContent?alt=sse`, the key in
 * `x-goog-api-key` (none when empty).
 *
 * @param ctx The provider's fixed parts.
 * @param req The request.
 * @param key The API key.
 * @returns The chunks.
 */
export function streamGemini(
  ctx: GeminiCallContext,
  req: LlmRequest,
  key: string,
): AsyncIterable<StreamChunk> {
  const { id, custom, options } = ctx;
  const body = buildGeminiBody(req, ctx.catalog.lookup(req.model));
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
    fetch: options.fetch,
    url: `${ctx.base}/models/${
      encodeURIComponent(req.model)
    }:streamGenerateContent?alt=sse`,
    headers,
    body: JSON.stringify(body),
    signal: req.signal,
    redact,
    mapper,
    classify: classifyGeminiError,
    customEndpoint: custom,
    limits: ctx.limits,
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.sse === undefined ? {} : { sse: options.sse }),
  });
}
