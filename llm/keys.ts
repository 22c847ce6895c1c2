/**
 * Where a provider's API key comes from: the rule shared by the library
 * and the CLI. Only the caller's environment reader is consulted.
 *
 * @module
 */
import { builtinRow } from "./provider_table.ts";

/**
 * Reads one environment variable; `Deno.env` fits.
 */
export interface EnvReader {
  /** The variable's value, or `undefined` when unset. */
  get(name: string): string | undefined;
}

/**
 * The variables consulted for a provider's key, in order:
 * `RELAVIUM_<ID>_API_KEY` (upper case, `-` → `_`), then the vendor's own
 * variable for a shipped provider (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`,
 * `DEEPSEEK_API_KEY`, `GEMINI_API_KEY`).
 *
 * @param provider The provider id.
 * @returns The variable names.
 *
 * @example Names
 * ```ts
 * import { providerKeyVariables } from "@relavium/session/llm";
 * import assert from "node:assert/strict";
 * assert.deepEqual(providerKeyVariables("openai"), ["RELAVIUM_OPENAI_API_KEY", "OPENAI_API_KEY"]);
 * assert.deepEqual(providerKeyVariables("my-llm"), ["RELAVIUM_MY_LLM_API_KEY"]);
 * ```
 */
export function providerKeyVariables(provider: string): string[] {
  const own = `RELAVIUM_${provider.toUpperCase().replaceAll("-", "_")}_API_KEY`;
  const vendor = builtinRow(provider)?.keyVariable;
  return vendor === undefined ? [own] : [own, vendor];
}

/**
 * A provider key was not found: the provider and the variables tried.
 *
 * @example Catch it
 * ```ts
 * import { lookupProviderKey, MissingKeyError } from "@relavium/session/llm";
 * import assert from "node:assert/strict";
 * assert.throws(
 *   () => lookupProviderKey("anthropic", { get: () => undefined }),
 *   (e) => e instanceof MissingKeyError && e.tried.length === 2,
 * );
 * ```
 */
export class MissingKeyError extends Error {
  /** The provider id. */
  readonly provider: string;
  /** The variables consulted, in order. */
  readonly tried: readonly string[];

  /**
   * Builds the error; its message names every variable tried.
   *
   * @param provider The provider id.
   * @param tried The variables consulted.
   */
  constructor(provider: string, tried: readonly string[]) {
    super(`No API key for provider ${provider}: set ${tried.join(" or ")}`);
    this.name = "MissingKeyError";
    this.provider = provider;
    this.tried = [...tried];
  }
}

/**
 * Reads a provider's key: the first non-empty variable of
 * {@linkcode providerKeyVariables}.
 *
 * @param provider The provider id.
 * @param env The caller's environment (e.g. `Deno.env`).
 * @returns The key.
 * @throws {MissingKeyError} When every variable is unset or empty.
 *
 * @example The vendor variable when the own one is empty
 * ```ts
 * import { lookupProviderKey } from "@relavium/session/llm";
 * import assert from "node:assert/strict";
 * const vars: Record<string, string> = { RELAVIUM_OPENAI_API_KEY: "", OPENAI_API_KEY: "sk-test" };
 * assert.equal(lookupProviderKey("openai", { get: (n) => vars[n] }), "sk-test");
 * ```
 */
export function lookupProviderKey(provider: string, env: EnvReader): string {
  const tried = providerKeyVariables(provider);
  for (const name of tried) {
    const value = env.get(name);
    if (value !== undefined && value !== "") return value;
  }
  throw new MissingKeyError(provider, tried);
}
