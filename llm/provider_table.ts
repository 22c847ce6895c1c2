/**
 * The one provider table: every wire API this version speaks (a kind) and
 * every built-in provider id, with its kind, official endpoint, vendor key
 * variable and the model ids it serves. Adding a kind is one row of
 * {@linkcode PROVIDER_KINDS} plus its adapter folder; adding a built-in
 * provider is one row of {@linkcode BUILTIN_PROVIDERS}.
 *
 * This file loads no adapter: each kind's adapter module is imported by
 * its first call, so a session on one kind (or on a cassette) never loads
 * the others.
 *
 * @module
 */
import type { HttpProviderOptions } from "./http.ts";
import type { LlmProvider, ProviderSupports } from "./provider.ts";

/**
 * The wire APIs: `anthropic` (Messages), `openai-compatible` (Chat
 * Completions), `openai-responses` (Responses), `gemini`
 * (`streamGenerateContent`).
 */
export type ProviderKind =
  | "anthropic"
  | "openai-compatible"
  | "openai-responses"
  | "gemini";

/**
 * What an adapter of any kind is built with: the HTTP options plus the
 * provider id and the settings only some kinds read.
 */
export interface AdapterOptions extends HttpProviderOptions {
  /** The provider id the adapter reports and errors name. */
  id: string;
  /** Chat Completions: the field that carries the output cap. */
  maxTokensParam?: "max_tokens" | "max_completion_tokens";
  /** Chat Completions: the provider's dialect. */
  dialect?: "openai" | "deepseek";
  /** Anthropic prompt caching (default on, 5 minutes; `false` = off). */
  promptCaching?: boolean | "5m" | "1h";
}

/**
 * One wire API: the face its adapters show before they load, and how the
 * adapter module is loaded.
 */
export interface KindRow {
  /** The `kind` its adapters report. */
  reports: LlmProvider["kind"];
  /** What the adapter supports on an official or a custom endpoint. */
  supports(custom: boolean): ProviderSupports;
  /** Loads the adapter module and builds the adapter. */
  load(): Promise<(options: AdapterOptions) => LlmProvider>;
}

const ALL: ProviderSupports = {
  tools: true,
  streaming: true,
  parallelToolCalls: true,
  reasoning: true,
  promptCache: true,
};

/** An HTTP endpoint of the same API: reasoning and caching unknown. */
function httpSupports(custom: boolean): ProviderSupports {
  return { ...ALL, reasoning: !custom, promptCache: !custom };
}

/**
 * The wire APIs, one row each. The specifiers are literals so a compiled
 * binary bundles every adapter.
 */
export const PROVIDER_KINDS: Readonly<Record<ProviderKind, KindRow>> = {
  anthropic: {
    reports: "anthropic",
    supports: () => ALL,
    load: () =>
      import("./anthropic/provider.ts").then((m) => m.createAnthropicProvider),
  },
  "openai-compatible": {
    reports: "openai-compatible",
    supports: httpSupports,
    load: () =>
      import("./openai/provider.ts").then((m) => m.createOpenAiProvider),
  },
  "openai-responses": {
    reports: "openai-compatible",
    supports: httpSupports,
    load: () =>
      import("./openai_responses/provider.ts").then((m) =>
        m.createOpenAiResponsesProvider
      ),
  },
  gemini: {
    reports: "gemini",
    supports: () => ALL,
    load: () =>
      import("./gemini/provider.ts").then((m) => m.createGeminiProvider),
  },
};

/**
 * A built-in provider id: its kind, official endpoint, vendor key
 * variable and the model ids it is inferred from.
 */
export interface BuiltinRow {
  /** The wire API. */
  kind: ProviderKind;
  /** The official base URL. */
  baseUrl: string;
  /** The vendor's own key variable (after `RELAVIUM_<ID>_API_KEY`). */
  keyVariable: string;
  /** The model ids this provider is inferred from (lower-cased). */
  models: RegExp;
  /** Chat Completions dialect. */
  dialect?: "openai" | "deepseek";
}

/**
 * The built-in provider ids, one row each.
 */
export const BUILTIN_PROVIDERS: Readonly<Record<string, BuiltinRow>> = {
  anthropic: {
    kind: "anthropic",
    baseUrl: "https://api.anthropic.com",
    keyVariable: "ANTHROPIC_API_KEY",
    models: /^claude/,
  },
  // Its reasoning models go to the Responses API (the catalog's
  // `openAiRoute`); the others to Chat Completions.
  openai: {
    kind: "openai-compatible",
    baseUrl: "https://api.openai.com/v1",
    keyVariable: "OPENAI_API_KEY",
    models: /^(gpt|o\d)/,
  },
  gemini: {
    kind: "gemini",
    baseUrl: "https://generativelanguage.googleapis.com/v1beta",
    keyVariable: "GEMINI_API_KEY",
    models: /^gemini/,
  },
  deepseek: {
    kind: "openai-compatible",
    baseUrl: "https://api.deepseek.com",
    keyVariable: "DEEPSEEK_API_KEY",
    models: /^deepseek/,
    dialect: "deepseek",
  },
};

/**
 * The row of a built-in provider id.
 *
 * @param id A provider id.
 * @returns The row, or `undefined` for an id that is not built in.
 */
export function builtinRow(id: string): BuiltinRow | undefined {
  return Object.hasOwn(BUILTIN_PROVIDERS, id)
    ? BUILTIN_PROVIDERS[id]
    : undefined;
}

/**
 * Whether `id` is a built-in provider.
 *
 * @param id A provider id.
 * @returns `true` for `anthropic`, `openai`, `gemini`, `deepseek`.
 */
export function isBuiltInProvider(id: string): boolean {
  return builtinRow(id) !== undefined;
}

/**
 * Infers the provider of a model id from the built-in rows: `claude*` →
 * anthropic, `gpt*`/`o<digit>*` → openai, `gemini*` → gemini,
 * `deepseek*` → deepseek.
 *
 * @param model A model id.
 * @returns The provider id, or `undefined` when it cannot be inferred.
 */
export function inferProvider(model: string): string | undefined {
  const m = model.toLowerCase();
  for (const [id, row] of Object.entries(BUILTIN_PROVIDERS)) {
    if (row.models.test(m)) return id;
  }
  return undefined;
}
