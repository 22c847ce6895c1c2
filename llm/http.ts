/**
 * What every HTTP provider adapter is given: an injected `fetch`, the base
 * URL, and the few knobs the CLI wires from config.
 *
 * @module
 */
import type { ModelCatalog } from "./catalog.ts";
import type { ProviderSupports } from "./provider.ts";
import type { SseParserOptions } from "./sse.ts";

/**
 * The `fetch` an adapter calls (the global `fetch` fits). Adapters always
 * pass `redirect: "error"` and the request's abort signal.
 */
export type FetchFn = (
  input: string,
  init: RequestInit,
) => Promise<Response>;

/**
 * Options shared by the HTTP adapters. Plain data plus injected effects:
 * no environment reads, no wall clock.
 */
export interface HttpProviderOptions {
  /** The transport; tests pass a loopback or in-memory one. */
  fetch: FetchFn;
  /**
   * Base URL, trailing `/` ignored: Anthropic's excludes
   * the version (`{base}/v1/messages`), OpenAI-compatible ones include it
   * (`{base}/chat/completions`). Default: the provider's official URL.
   */
  baseUrl?: string;
  /**
   * Non-default endpoint: overflows are never authoritative (downgraded to
   * `bad_request` + `possible_context_overflow`) and `contextLimit` is
   * unknown. Default: `true` when `baseUrl` differs from the official one.
   */
  customEndpoint?: boolean;
  /** Windows, output ceilings and reasoning flags; default the bundled one. */
  catalog?: ModelCatalog;
  /**
   * The context window, in tokens, the endpoint declares for every model
   * it serves: authoritative for measured compaction even on a custom
   * endpoint (whose catalog windows are not).
   */
  contextWindow?: number;
  /** Capability overrides (e.g. a local server without tools). */
  supports?: Partial<ProviderSupports>;
  /** Epoch ms, to read `retry-after` HTTP dates; without it they are ignored. */
  now?: () => number;
  /** Bounds of the SSE reader; beyond them the call fails as `transport`. */
  sse?: SseParserOptions;
  /**
   * First-byte timeout, in ms (default 60 000): from sending the request
   * until the first content (an event the adapter makes a chunk of: text,
   * reasoning, a tool call, the stop, an error). Headers, SSE comments and
   * `ping` events do not count. On expiry the request is aborted and the
   * call ends with a retryable `timeout` (`code: "first_byte_timeout"`).
   */
  firstByteTimeoutMs?: number;
  /**
   * Idle-stream timeout, in ms (default 300 000): the longest gap between
   * two content events once content has started; keep-alives do not reset
   * it. On expiry: a `timeout` with `code: "idle_timeout"`.
   */
  idleTimeoutMs?: number;
  /**
   * Most bytes of one response body (default 64 MiB); past it the call
   * ends with a `transport` error, `code: "response_too_large"`.
   */
  maxResponseBytes?: number;
  /**
   * Prompt caching where the API takes explicit breakpoints (Anthropic's
   * `cache_control` on the tools, the system prompt and the latest turns):
   * `true` (the default) caches for 5 minutes, `"1h"` for an hour (writes
   * cost more), `false` sends no breakpoint. APIs that cache on their own
   * (OpenAI-compatible ones) ignore it.
   */
  promptCaching?: boolean | "5m" | "1h";
}

/**
 * Normalises a base URL: surrounding whitespace and trailing `/` removed.
 *
 * @param url A base URL.
 * @returns The URL without trailing slashes.
 */
export function normaliseBaseUrl(url: string): string {
  return url.trim().replace(/\/+$/, "");
}
