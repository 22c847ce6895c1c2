/**
 * Provider API keys from the environment: the library's rule
 * (`providerKeyVariables`) plus a `[[providers]]` entry's `api_key_env`.
 * Lookups report which variable held the key, never the key; only
 * {@linkcode readKey} returns a value, for the session's `keyFor`.
 *
 * @module
 */
import { providerKeyVariables } from "../../llm/keys.ts";
import { err, ok, type Result } from "../../schema/result.ts";
import type { ResolvedProvider } from "../config/resolve.ts";
import { type CliFault, fault } from "../fault.ts";

/**
 * Outcome of a key lookup: found (which variable), not needed (a local
 * provider without a key sends no auth), or missing (the variables tried).
 */
export type KeyStatus =
  | { status: "found"; variable: string }
  | { status: "no-auth"; tried: string[] }
  | { status: "missing"; tried: string[] };

/**
 * The variables consulted for a provider, in order: built-ins
 * `RELAVIUM_<ID>_API_KEY` then the vendor's variable; a `[[providers]]` id
 * its global `api_key_env`, else `RELAVIUM_<ID>_API_KEY` (upper case,
 * `-` → `_`), never a vendor variable.
 *
 * @param providerId The provider id.
 * @param providers The resolved providers (for `api_key_env`).
 * @returns The variable names.
 */
export function keyVariables(
  providerId: string,
  providers: readonly ResolvedProvider[],
): string[] {
  const p = providers.find((x) => x.id === providerId);
  if (p !== undefined && !p.builtIn && p.apiKeyEnv !== undefined) {
    return [p.apiKeyEnv];
  }
  const variables = providerKeyVariables(providerId);
  const isCustom = p !== undefined && !p.builtIn;
  return isCustom ? variables.slice(0, 1) : variables;
}

/**
 * Every configured key: the non-empty value of each variable the key
 * lookup reads for any resolved provider (built-in or `[[providers]]`),
 * whichever provider the session runs on. The secrets the CLI redacts and
 * refuses in tool arguments.
 *
 * @param options The resolved providers and the environment.
 * @returns The key values, without duplicates.
 */
export function configuredKeys(
  options: {
    providers: readonly ResolvedProvider[];
    env(name: string): string | undefined;
  },
): string[] {
  const keys = new Set<string>();
  for (const p of options.providers) {
    for (const variable of keyVariables(p.id, options.providers)) {
      const value = options.env(variable);
      if (value !== undefined && value !== "") keys.add(value);
    }
  }
  return [...keys];
}

/**
 * Looks a provider's key up without revealing it.
 *
 * @param providerId The provider id.
 * @param options The resolved providers and the environment.
 * @returns Which variable holds the key, or what was tried.
 */
export function lookupKey(
  providerId: string,
  options: {
    providers: readonly ResolvedProvider[];
    env(name: string): string | undefined;
  },
): KeyStatus {
  const tried = keyVariables(providerId, options.providers);
  for (const variable of tried) {
    const value = options.env(variable);
    if (value !== undefined && value !== "") {
      return { status: "found", variable };
    }
  }
  const p = options.providers.find((x) => x.id === providerId);
  if (p?.allowLocal === true) return { status: "no-auth", tried };
  return { status: "missing", tried };
}

/**
 * Reads a provider's key for a request. A local (`allow_local`) provider
 * without a key yields `""`: the adapter then sends no auth header.
 *
 * @param providerId The provider id.
 * @param options The resolved providers and the environment.
 * @returns The key, or a `provider_auth` fault naming the variables tried.
 */
export function readKey(
  providerId: string,
  options: {
    providers: readonly ResolvedProvider[];
    env(name: string): string | undefined;
  },
): Result<string, CliFault> {
  const status = lookupKey(providerId, options);
  if (status.status === "found") return ok(options.env(status.variable) ?? "");
  if (status.status === "no-auth") return ok("");
  return err(fault(
    "provider_auth",
    `No API key for provider ${providerId}: set ${status.tried.join(" or ")}`,
  ));
}
