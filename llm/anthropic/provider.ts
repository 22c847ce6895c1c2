/**
 * The Anthropic Messages adapter (llm.md §10): our own `fetch` + SSE code
 * over the provider seam, no vendor SDK.
 *
 * @module
 */
import type { StreamChunk } from "../chunk.ts";
import type { LlmProvider, LlmRequest, ProviderSupports } from "../provider.ts";
import type { ModelCatalog } from "../catalog.ts";
import type { HttpProviderOptions } from "../http.ts";
import { contextLimitOf, resolveEndpoint } from "../_endpoint.ts";
import { createCatalog } from "../create_catalog.ts";
import { makeLlmError } from "../errors.ts";
import { finishError } from "../_http_errors.ts";
import { keyRedactor } from "../_http_open.ts";
import { singleChunk, streamHttp } from "../_http_stream.ts";
import { classifyAnthropicError } from "./_errors.ts";
import { createAnthropicMapper } from "./_map_stream.ts";
import { buildAnthropicBody } from "./_request_body.ts";

/**
 * The official Anthropic base URL (without the version, DECISIONS.md 26).
 *
 * @example Read it
 * ```ts
 * import { ANTHROPIC_BASE_URL } from "@relavium/session/llm";
 * import assert from "node:assert/strict";
 * assert.equal(ANTHROPIC_BASE_URL, "https://api.anthropic.com");
 * ```
 */
export const ANTHROPIC_BASE_URL: string = "https://api.anthropic.com";

/**
 * The `anthropic-version` header every request carries.
 *
 * @example Read it
 * ```ts
 * import { ANTHROPIC_VERSION } from "@relavium/session/llm";
 * import assert from "node:assert/strict";
 * assert.equal(ANTHROPIC_VERSION, "2023-06-01");
 * ```
 */
export const ANTHROPIC_VERSION: string = "2023-06-01";

/**
 * Options of {@linkcode createAnthropicProvider}.
 *
 * @example Built-in provider
 * ```ts
 * import type { AnthropicProviderOptions } from "@relavium/session/llm";
 * const o: AnthropicProviderOptions = { fetch };
 * ```
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
 * never following a redirect, and maps the SSE stream to chunks (llm.md
 * §10). Failures are one classified `error` chunk (llm.md §5); provider
 * text stays in `LlmError.message`, scrubbed and with the key removed.
 * `contextLimit` comes from the catalog on the official endpoint and is
 * unknown on a custom one.
 *
 * @param options Transport, base URL, id, catalog, clock, capabilities.
 * @returns The provider.
 * @throws {TypeError} When `fetch` is not a function or `baseUrl` is not a
 *   URL.
 *
 * @example Stream a reply from an in-memory fetch
 * ```ts
 * import { createAnthropicProvider, type StreamChunk } from "@relavium/session/llm";
 * import assert from "node:assert/strict";
 * const sse = [
 *   'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":3,"output_tokens":1}}}\n\n',
 *   'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
 *   'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}\n\n',
 *   'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
 *   'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}\n\n',
 *   'event: message_stop\ndata: {"type":"message_stop"}\n\n',
 * ].join("");
 * let url = "";
 * const provider = createAnthropicProvider({
 *   fetch: (u) => { url = u; return Promise.resolve(new Response(sse)); },
 * });
 * const chunks: StreamChunk[] = [];
 * for await (const c of provider.stream({ model: "claude-haiku-4-5", messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }] }, "key")) chunks.push(c);
 * assert.equal(url, "https://api.anthropic.com/v1/messages");
 * assert.deepEqual(chunks.map((c) => c.type), ["text_delta", "stop"]);
 * assert.equal(provider.contextLimit?.("claude-haiku-4-5"), 200_000);
 * ```
 */
export function createAnthropicProvider(
  options: AnthropicProviderOptions,
): LlmProvider {
  const id = options.id ?? "anthropic";
  const { base, custom } = resolveEndpoint(options, ANTHROPIC_BASE_URL);
  const catalog: ModelCatalog = options.catalog ?? createCatalog();
  const url = `${base}/v1/messages`;
  const supports: ProviderSupports = {
    ...DEFAULT_SUPPORTS,
    ...options.supports,
  };

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
      fetch: options.fetch,
      url,
      headers,
      body: JSON.stringify(body.value),
      signal: req.signal,
      redact,
      mapper,
      classify: classifyAnthropicError,
      customEndpoint: custom,
      ...(options.now === undefined ? {} : { now: options.now }),
      ...(options.sse === undefined ? {} : { sse: options.sse }),
    });
  }

  return {
    id,
    kind: "anthropic",
    customEndpoint: custom,
    supports,
    stream,
    contextLimit: contextLimitOf(catalog, custom),
  };
}
