/**
 * Provider API keys from the environment, as the library's registry reads
 * them (`RELAVIUM_<P>_API_KEY`, the vendor variable, a `[[providers]]`
 * entry's `api_key_env`). Lookups report which variable held the key,
 * never the key; only {@linkcode readKey} returns a value.
 *
 * @module
 */
import {
  createProviderRegistry,
  type ProviderRegistry,
} from "../../llm/provider_registry.ts";
import { err, ok, type Result } from "../../schema/result.ts";
import type { ResolvedProvider } from "../config/resolve.ts";
import { type CliFault, fault } from "../fault.ts";

/** A key lookup's outcome, naming variables, never the key. */
export type KeyStatus = ReturnType<ProviderRegistry["lookupKey"]>;

/**
 * The registry of the resolved providers.
 *
 * @param providers The resolved providers.
 * @returns The registry.
 */
export function registryOf(
  providers: readonly ResolvedProvider[],
): ProviderRegistry {
  return createProviderRegistry(providers);
}

/**
 * Reads a provider's key. A local (`allow_local`) provider without a key
 * yields `""`: the adapter then sends no auth header.
 *
 * @param providerId The provider id.
 * @param options The registry and the environment.
 * @returns The key, or a `provider_auth` fault naming the variables tried.
 */
export function readKey(
  providerId: string,
  options: {
    registry: ProviderRegistry;
    env(name: string): string | undefined;
  },
): Result<string, CliFault> {
  const status = options.registry.lookupKey(providerId, { get: options.env });
  if (status.status === "found") return ok(options.env(status.variable) ?? "");
  if (status.status === "no-auth") return ok("");
  return err(fault(
    "provider_auth",
    `No API key for provider ${providerId}: set ${status.tried.join(" or ")}`,
  ));
}
