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
 * import { createProviderRegistry, MissingKeyError } from "@relavium/session/llm";
 * import assert from "node:assert/strict";
 * assert.throws(
 *   () => createProviderRegistry().keyFor("anthropic", { get: () => undefined }),
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
