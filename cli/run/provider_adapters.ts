/**
 * The real provider adapters behind the CLI's provider registry: built-in
 * `anthropic`, `openai`, `deepseek` and `gemini` (the library's
 * `createBuiltinProvider`), `[[providers]]` entries of kind `anthropic`,
 * `openai-compatible` or `gemini`, and `RELAVIUM_<P>_BASE_URL` overrides.
 * Loaded only by sessions without `--fixture`; the Gemini adapter only by
 * its first call.
 *
 * @module
 */
import {
  ANTHROPIC_BASE_URL,
  createAnthropicProvider,
} from "../../llm/anthropic/provider.ts";
import { createBuiltinProvider } from "../../llm/builtin_providers.ts";
import type { ListableCatalog } from "../../llm/create_catalog.ts";
import type { FetchFn } from "../../llm/http.ts";
import { GEMINI_BASE_URL } from "../../llm/gemini/_base_url.ts";
import { createLazyGeminiProvider } from "../../llm/gemini/_lazy.ts";
import {
  createOpenAiProvider,
  DEEPSEEK_BASE_URL,
  OPENAI_BASE_URL,
} from "../../llm/openai/provider.ts";
import type { LlmProvider } from "../../llm/provider.ts";
import type { ResolvedProvider } from "../config/resolve.ts";
import type { StreamLimitOptions } from "../../llm/_watchdog.ts";

/**
 * What every adapter is built with.
 */
export interface AdapterDeps {
  /** The transport (the io's `fetch`). */
  fetch: FetchFn;
  /** The session's catalog (bundled models plus `[[providers]]` prices). */
  catalog: ListableCatalog;
  /** Epoch ms (reads `retry-after` HTTP dates). */
  now(): number;
  /** `[chat].prompt_caching` (absent = the adapters' default, on). */
  promptCaching?: boolean | "5m" | "1h";
  /** `[chat]`'s stream bounds (a `[[providers]]` entry's own win). */
  limits?: StreamLimitOptions;
}

/**
 * The official base URL of a built-in provider.
 *
 * @param id A provider id.
 * @returns The URL, or `undefined` for a provider without a built-in
 * endpoint (a `[[providers]]` id).
 */
export function defaultBaseUrl(id: string): string | undefined {
  switch (id) {
    case "anthropic":
      return ANTHROPIC_BASE_URL;
    case "openai":
      return OPENAI_BASE_URL;
    case "deepseek":
      return DEEPSEEK_BASE_URL;
    case "gemini":
      return GEMINI_BASE_URL;
    default:
      return undefined;
  }
}

/**
 * Builds the adapter of a resolved provider. A base URL (a `[[providers]]`
 * entry's, or a built-in's `RELAVIUM_<P>_BASE_URL`) makes it a custom
 * endpoint: overflows downgraded, window never authoritative.
 *
 * @param provider The resolved provider.
 * @param deps Transport, catalog and clock.
 * @returns The adapter, or `undefined` when this version has none.
 */
export function createAdapter(
  provider: ResolvedProvider,
  deps: AdapterDeps,
): LlmProvider | undefined {
  const { fetch, catalog, now } = deps;
  const common = {
    fetch,
    catalog,
    now,
    ...(deps.promptCaching === undefined
      ? {}
      : { promptCaching: deps.promptCaching }),
  };
  const limits = { ...deps.limits, ...provider.limits };
  if (provider.builtIn) {
    return createBuiltinProvider(provider.id, {
      ...common,
      ...limits,
      ...(provider.baseUrl === undefined ? {} : { baseUrl: provider.baseUrl }),
    });
  }
  if (provider.baseUrl === undefined) return undefined;
  const custom = {
    id: provider.id,
    baseUrl: provider.baseUrl,
    customEndpoint: true,
    ...(provider.contextWindow === undefined
      ? {}
      : { contextWindow: provider.contextWindow }),
    ...(provider.reasoning === undefined
      ? {}
      : { supports: { reasoning: provider.reasoning } }),
    ...common,
    ...limits,
  };
  switch (provider.kind) {
    case "anthropic":
      return createAnthropicProvider(custom);
    case "openai-compatible":
      return createOpenAiProvider({
        ...custom,
        ...(provider.maxTokensParam === undefined
          ? {}
          : { maxTokensParam: provider.maxTokensParam }),
        ...(provider.dialect === undefined
          ? {}
          : { dialect: provider.dialect }),
      });
    case "gemini":
      return createLazyGeminiProvider(custom);
    default:
      return undefined;
  }
}
