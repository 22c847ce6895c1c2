/**
 * Base URL and custom-endpoint resolution shared by the HTTP adapters:
 * any base URL other than the dialect's official one is a custom endpoint.
 *
 * @module
 */
import type { ModelCatalog } from "./catalog.ts";
import { type HttpProviderOptions, normaliseBaseUrl } from "./http.ts";
import type { LlmProvider } from "./provider.ts";

/**
 * Checks the shared options of an HTTP adapter and resolves its base URL
 * and custom-endpoint flag.
 *
 * @param options The options.
 * @param officialBase The provider's official base URL.
 * @returns The base URL to use and whether it is custom.
 * @throws {TypeError} When `fetch` is not a function or `baseUrl` is not a
 *   URL.
 */
export function resolveEndpoint(
  options: HttpProviderOptions,
  officialBase: string,
): { base: string; custom: boolean } {
  if (typeof options.fetch !== "function") {
    throw new TypeError("Cannot create the provider: fetch must be a function");
  }
  const base = normaliseBaseUrl(options.baseUrl ?? officialBase);
  if (!URL.canParse(base)) {
    throw new TypeError(
      `Cannot create the provider: invalid base URL ${JSON.stringify(base)}`,
    );
  }
  return { base, custom: options.customEndpoint ?? base !== officialBase };
}

/**
 * The context window an adapter reports: the catalog's for its own
 * endpoint; none for a custom endpoint (whose models the catalog does not
 * describe).
 *
 * @param catalog The model catalog.
 * @param custom Whether the endpoint is custom.
 * @returns The adapter's `contextLimit`.
 */
export function contextLimitOf(
  catalog: ModelCatalog,
  custom: boolean,
  declared?: number,
): (model: string) => number | undefined {
  return (model) => {
    if (declared !== undefined && declared > 0) return declared;
    if (custom) return undefined;
    const window = catalog.lookup(model)?.contextWindowTokens;
    return window !== undefined && window > 0 ? window : undefined;
  };
}

/**
 * The endpoint half of an HTTP provider's face: whether it is custom, its
 * `contextLimit`, and `windowDeclared` when the configuration declares a
 * window.
 *
 * @param catalog The model catalog.
 * @param custom Whether the endpoint is custom.
 * @param declared The declared context window, if any.
 * @returns The fields to spread into the provider.
 */
export function endpointFace(
  catalog: ModelCatalog,
  custom: boolean,
  declared?: number,
): Pick<LlmProvider, "customEndpoint" | "contextLimit" | "windowDeclared"> {
  return {
    customEndpoint: custom,
    contextLimit: contextLimitOf(catalog, custom, declared),
    ...(declared !== undefined && declared > 0 ? { windowDeclared: true } : {}),
  };
}
