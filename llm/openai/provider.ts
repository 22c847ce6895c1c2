/**
 * The OpenAI Chat Completions adapter: official OpenAI,
 * DeepSeek (same adapter, its dialect) and OpenAI-compatible servers.
 *
 * @module
 */
import type { StreamChunk } from "../chunk.ts";
import type { LlmProvider, LlmRequest, ProviderSupports } from "../provider.ts";
import type { ModelCatalog } from "../catalog.ts";
import type { HttpProviderOptions } from "../http.ts";
import { createCatalog } from "../create_catalog.ts";
import { finishError } from "../_http_errors.ts";
import { keyRedactor } from "../_http_open.ts";
import { singleChunk, streamHttp, transportOf } from "../_http_stream.ts";
import { streamLimits } from "../stream_limits.ts";
import { makeLlmError } from "../errors.ts";
import { endpointFace, httpSupports, resolveEndpoint } from "../_endpoint.ts";
import { classifyOpenAiError } from "./_errors.ts";
import { createOpenAiMapper } from "./_map_stream.ts";
import { buildOpenAiBody } from "./_request_body.ts";
import type { MaxTokensParam, OpenAiDialect } from "./types.ts";
import { createLazyResponsesProvider } from "../openai_responses/_lazy.ts";
import { openAiRoute } from "../catalog_data.ts";

/**
 * The official OpenAI base URL (with the version).
 */
export const OPENAI_BASE_URL: string = "https://api.openai.com/v1";

/**
 * The official DeepSeek base URL (`{base}/chat/completions`).
 */
export const DEEPSEEK_BASE_URL: string = "https://api.deepseek.com";

/**
 * Options of {@linkcode createOpenAiProvider}.
 */
export interface OpenAiProviderOptions extends HttpProviderOptions {
  /** Provider id: `openai`, `deepseek` or a `[[providers]]` id. */
  id: string;
  /**
   * Server conventions: `openai` (overflow = `context_length_exceeded`,
   * `reasoning_effort`) or `deepseek` (overflow = "maximum context length",
   * `thinking` on/off, reasoning replayed with tool calls). Default
   * `openai`; the official base URL follows it.
   */
  dialect?: OpenAiDialect;
  /**
   * Output-cap field. Default `max_completion_tokens` on the official
   * OpenAI endpoint, `max_tokens` everywhere else.
   */
  maxTokensParam?: MaxTokensParam;
}

/**
 * Creates an OpenAI Chat Completions provider. On the official OpenAI
 * endpoint, a reasoning model's calls (GPT-5 and later, the o-series) go
 * to the Responses API instead (`{base}/responses`), which carries their
 * effort beside tools. Each other `stream` call POSTs
 * `{base}/chat/completions` with `Authorization: Bearer <key>` (omitted when
 * the key is empty, as for local servers) and
 * `stream_options.include_usage`, never following a redirect, and maps the
 * SSE stream to chunks. Failures are one classified `error`
 * chunk. A base URL other than the dialect's official one makes
 * a custom endpoint: overflows downgraded, `contextLimit` unknown, and by
 * default no reasoning or prompt-cache capability.
 *
 * @param options Id, transport, base URL, dialect, cap field, catalog.
 * @returns The provider.
 * @throws {TypeError} When `id` is empty, `fetch` is not a function or
 *   `baseUrl` is not a URL.
 * @throws {RangeError} When a timeout or the response size bound is not a
 *   positive integer.
 */
export function createOpenAiProvider(
  options: OpenAiProviderOptions,
): LlmProvider {
  const id = options.id;
  if (typeof id !== "string" || id === "") {
    throw new TypeError(
      "Cannot create the provider: id must be a non-empty string",
    );
  }
  const dialect: OpenAiDialect = options.dialect ?? "openai";
  const official = dialect === "deepseek" ? DEEPSEEK_BASE_URL : OPENAI_BASE_URL;
  const { base, custom } = resolveEndpoint(options, official);
  const catalog: ModelCatalog = options.catalog ?? createCatalog();
  const maxTokensParam: MaxTokensParam = options.maxTokensParam ??
    (dialect === "openai" && !custom ? "max_completion_tokens" : "max_tokens");
  const limits = streamLimits(options);
  const url = `${base}/chat/completions`;
  const supports: ProviderSupports = {
    ...httpSupports(custom),
    ...options.supports,
  };

  // On the official endpoint every reasoning model goes to the Responses
  // API (its adapter loads on the first such call): Chat Completions
  // refuses their function tools beside an effort.
  const responses = dialect === "openai" && !custom
    ? createLazyResponsesProvider({ ...options, id, catalog, baseUrl: base })
    : undefined;

  function stream(req: LlmRequest, key: string): AsyncIterable<StreamChunk> {
    if (
      responses !== undefined &&
      openAiRoute(req.model, catalog.lookup(req.model)) === "responses"
    ) {
      return responses.stream(req, key);
    }
    const body = buildOpenAiBody(req, { dialect, maxTokensParam, catalog });
    if (!body.ok) {
      const error = makeLlmError("bad_request", id, body.error);
      return singleChunk({ type: "error", error });
    }
    const headers: Record<string, string> = {
      "content-type": "application/json",
    };
    if (key !== "") headers.authorization = `Bearer ${key}`;
    const redact = keyRedactor(key);
    const mapper = createOpenAiMapper(id, (data, text) => {
      const c = classifyOpenAiError(dialect, undefined, data, text);
      return finishError(id, { ...c, message: redact(c.message) }, {
        customEndpoint: custom,
      });
    });
    return streamHttp({
      provider: id,
      ...transportOf(options),
      url,
      headers,
      body: JSON.stringify(body.value),
      signal: req.signal,
      redact,
      mapper,
      classify: (status, parsed, text) =>
        classifyOpenAiError(dialect, status, parsed, text),
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
