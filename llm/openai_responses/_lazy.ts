/**
 * The Responses API provider loaded on first use: created (its options
 * checked) at once, its adapter module imported by the first `stream`
 * call, so a session that never calls it never loads it.
 *
 * @module
 */
import type { LlmProvider } from "../provider.ts";
import { endpointFace, httpSupports, resolveEndpoint } from "../_endpoint.ts";
import { lazyProvider } from "../_lazy_provider.ts";
import { createCatalog } from "../create_catalog.ts";
import { streamLimits } from "../stream_limits.ts";
import type { OpenAiResponsesProviderOptions } from "./provider.ts";
import { RESPONSES_BASE_URL } from "./_base.ts";

/**
 * Creates the provider of `createOpenAiResponsesProvider`, its module
 * imported on the first `stream` call (once).
 *
 * @param options As for `createOpenAiResponsesProvider`.
 * @returns The provider.
 * @throws {TypeError} When `fetch` is not a function or `baseUrl` is not a
 *   URL.
 * @throws {RangeError} When a timeout or the response bound is not a
 *   positive integer.
 */
export function createLazyResponsesProvider(
  options: OpenAiResponsesProviderOptions,
): LlmProvider {
  const { custom } = resolveEndpoint(options, RESPONSES_BASE_URL);
  streamLimits(options);
  const catalog = options.catalog ?? createCatalog();
  const resolved: OpenAiResponsesProviderOptions = { ...options, catalog };
  return lazyProvider(
    {
      id: options.id ?? "openai",
      kind: "openai-compatible",
      supports: { ...httpSupports(custom), ...options.supports },
      ...endpointFace(catalog, custom, options.contextWindow),
    },
    () =>
      import("./provider.ts").then((m) =>
        m.createOpenAiResponsesProvider(resolved)
      ),
  );
}
