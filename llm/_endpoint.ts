/**
 * Base URL and custom-endpoint resolution shared by the HTTP adapters
 * (DECISIONS.md 26, llm.md §12).
 *
 * @module
 */
import { type HttpProviderOptions, normaliseBaseUrl } from "./http.ts";

/**
 * Checks the shared options of an HTTP adapter and resolves its base URL
 * and custom-endpoint flag.
 *
 * @param options The options.
 * @param officialBase The provider's official base URL.
 * @returns The base URL to use and whether it is custom.
 * @throws {TypeError} When `fetch` is not a function or `baseUrl` is not a
 *   URL.
 *
 * @example Resolve an override
 * ```ts
 * import { resolveEndpoint } from "./_endpoint.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(resolveEndpoint({ fetch, baseUrl: "https://gw.example.com/" }, "https://api.anthropic.com"), { base: "https://gw.example.com", custom: true });
 * assert.deepEqual(resolveEndpoint({ fetch }, "https://api.anthropic.com"), { base: "https://api.anthropic.com", custom: false });
 * ```
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
