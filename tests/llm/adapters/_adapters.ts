/**
 * The four adapters on a loopback server, treated as their official
 * endpoints (`customEndpoint: false`), the way the conformance table and
 * the per-adapter tests build them; `extra` adds or overrides options.
 */
import { createAnthropicProvider } from "../../../llm/anthropic/provider.ts";
import { createGeminiProvider } from "../../../llm/gemini/provider.ts";
import { createOpenAiProvider } from "../../../llm/openai/provider.ts";
import { createOpenAiResponsesProvider } from "../../../llm/openai_responses/provider.ts";
import type { LlmError, LlmProvider, LlmRequest } from "../../../llm/mod.ts";
import { ask, callOnce, fixture, http, refusal, sse } from "./_server.ts";

/** A loopback provider at a server's URL, with `extra` options laid over. */
export type At<O> = (url: string, extra?: Partial<O>) => LlmProvider;

/**
 * The factory of `create` at `<url><path>` with the global `fetch`,
 * `customEndpoint: false` and `fixed`.
 */
function at<O>(
  create: (options: O) => LlmProvider,
  fixed: Partial<O> = {},
  path = "",
): At<O> {
  return (url, extra = {}) =>
    create({
      fetch,
      customEndpoint: false,
      ...fixed,
      baseUrl: `${url}${path}`,
      ...extra,
    } as O);
}

/** Anthropic at `url` (prompt caching as the adapter's default unless `extra` says). */
export const anthropicAt = at(createAnthropicProvider);
/** OpenAI Chat Completions (id `openai`) at `url`. */
export const openaiAt = at(createOpenAiProvider, { id: "openai" });
/** OpenAI Responses at `url`. */
export const responsesAt = at(createOpenAiResponsesProvider);
/** Gemini at `<url>/v1beta`. */
export const geminiAt = at(createGeminiProvider, {}, "/v1beta");

/** One adapter's wire kit: its fixtures, one call on a fixture, one refused call. */
export interface WireKit<O> {
  /** The bytes of `tests/fixtures/<provider>/<name>`. */
  fx(name: string): Uint8Array;
  /** One call answered by the SSE fixture `name`: chunks and requests. */
  once(
    name: string,
    req?: LlmRequest,
    extra?: Partial<O>,
  ): ReturnType<typeof callOnce>;
  /** The error of one call answered by the HTTP fixture `name`. */
  failure(name: string, extra?: Partial<O>): Promise<LlmError>;
}

/** The wire kit of the adapter `make` builds, on `provider`'s fixtures, asking `model` with `key`. */
export function wireKit<O>(
  provider: string,
  model: string,
  key: string,
  make: At<O>,
): WireKit<O> {
  const fx = (name: string): Uint8Array => fixture(provider, name);
  return {
    fx,
    once: (name, req = ask(model), extra = {}) =>
      callOnce((url) => make(url, extra), sse(fx(name)), req, key),
    failure: (name, extra = {}) =>
      refusal((url) => make(url, extra), http(fx(name)), ask(model), key),
  };
}
