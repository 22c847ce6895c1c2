/**
 * Wires the providers of a session's plan: a cassette's replay providers
 * under `--fixture`, else real providers with their keys checked before
 * the session starts (DECISIONS.md 24: a missing primary key is exit 2; a
 * fallback entry without a key is skipped with one warning).
 *
 * @module
 */
import type { LlmProvider } from "../llm/provider.ts";
import type { Replay } from "../llm/replay_provider.ts";
import type { Agent } from "../schema/agent.ts";
import { err, ok, type Result } from "../schema/result.ts";
import type { ResolvedProvider } from "./config/resolve.ts";
import { type CliFault, fault } from "./fault.ts";
import { lookupKey, readKey } from "./keys.ts";

/**
 * Providers and keys for one session.
 *
 * @example Shape
 * ```ts
 * import type { ProviderWiring } from "./provider_wiring.ts";
 * type W = ProviderWiring["warnings"];
 * ```
 */
export interface ProviderWiring {
  /** Provider by id (`undefined` = not wired). */
  resolveProvider(id: string): LlmProvider | undefined;
  /** The key for a provider; throws when it is missing (an auth failure). */
  keyFor(id: string): string;
  /** The cassette replay under `--fixture`. */
  replay?: Replay;
  /** The agent to run: fallback entries without a key removed. */
  agent: Agent;
  /** One line per skipped fallback entry. */
  warnings: string[];
}

/**
 * Inputs of {@linkcode wireProviders}.
 *
 * @example Shape
 * ```ts
 * import type { WiringOptions } from "./provider_wiring.ts";
 * type F = WiringOptions["fixture"];
 * ```
 */
export interface WiringOptions {
  /** The resolved providers (built-in and `[[providers]]`). */
  providers: readonly ResolvedProvider[];
  /** Reads environment variables. */
  env(name: string): string | undefined;
  /** The effective cwd (for a relative `--fixture`). */
  cwd: string;
  /** `--fixture <cassette>`. */
  fixture?: string;
  /**
   * The adapter of a configured provider; default: none (real adapters
   * are not part of this build yet, so only `--fixture` runs).
   */
  adapter?(provider: ResolvedProvider): LlmProvider | undefined;
}

/**
 * Wires the providers of `agent`'s plan.
 *
 * @param agent The agent (primary and fallback chain).
 * @param options Providers, environment, cwd and `--fixture`.
 * @returns The wiring, or a fault: `provider_config` (unknown provider, or
 * no adapter in this build), `provider_auth` (no key for the primary),
 * `invalid_cassette` / `not_found` (the cassette).
 *
 * @example Missing primary key
 * ```ts
 * import { wireProviders } from "./provider_wiring.ts";
 * import { resolveConfig } from "./config/resolve.ts";
 * import assert from "node:assert/strict";
 * const cfg = resolveConfig({}, () => undefined);
 * assert.ok(cfg.ok);
 * const r = await wireProviders(
 *   { id: "a", model: "claude-x", provider: "anthropic", system_prompt: "s" },
 *   { providers: cfg.ok ? cfg.value.providers : [], env: () => undefined, cwd: "/" },
 * );
 * assert.equal(r.ok ? "" : r.error.code, "provider_auth");
 * ```
 */
export async function wireProviders(
  agent: Agent,
  options: WiringOptions,
): Promise<Result<ProviderWiring, CliFault>> {
  const ids = [
    agent.provider,
    ...(agent.fallback_chain ?? []).map((f) => f.provider),
  ];
  for (const id of ids) {
    if (!options.providers.some((p) => p.id === id)) {
      return err(fault(
        "provider_config",
        `Unknown provider "${id}": use a built-in id (anthropic, openai, gemini, deepseek) or declare it in [[providers]]`,
      ));
    }
  }
  if (options.fixture !== undefined) {
    // Only a --fixture run loads the cassette parser and replay provider.
    const { loadFixture, REPLAY_KEY } = await import("./fixture.ts");
    const replay = await loadFixture(options.fixture, {
      cwd: options.cwd,
      primaryProvider: agent.provider,
    });
    if (!replay.ok) return replay;
    return ok({
      resolveProvider: (id) => replay.value.resolveProvider(id),
      keyFor: () => REPLAY_KEY,
      replay: replay.value,
      agent,
      warnings: [],
    });
  }
  const keys = { providers: options.providers, env: options.env };
  const primaryKey = readKey(agent.provider, keys);
  if (!primaryKey.ok) return primaryKey;
  const adapters = new Map<string, LlmProvider>();
  const adapterOf = (id: string): LlmProvider | undefined => {
    const known = adapters.get(id);
    if (known !== undefined) return known;
    const p = options.providers.find((x) => x.id === id);
    const made = p === undefined ? undefined : options.adapter?.(p);
    if (made !== undefined) adapters.set(id, made);
    return made;
  };
  if (adapterOf(agent.provider) === undefined) {
    return err(fault(
      "provider_config",
      `No adapter for provider "${agent.provider}" in this version: run with --fixture <cassette>`,
    ));
  }
  const warnings: string[] = [];
  const chain = (agent.fallback_chain ?? []).filter((f) => {
    const status = lookupKey(f.provider, keys);
    if (status.status === "missing") {
      warnings.push(
        `Skipping fallback ${f.provider}/${f.model}: no API key (set ${
          status.tried.join(" or ")
        })`,
      );
      return false;
    }
    if (adapterOf(f.provider) === undefined) {
      warnings.push(
        `Skipping fallback ${f.provider}/${f.model}: no adapter in this version`,
      );
      return false;
    }
    return true;
  });
  const { fallback_chain: _all, ...rest } = agent;
  return ok({
    resolveProvider: adapterOf,
    keyFor(id: string): string {
      const key = readKey(id, keys);
      if (!key.ok) throw new Error(key.error.message);
      return key.value;
    },
    agent: chain.length > 0 ? { ...rest, fallback_chain: chain } : rest,
    warnings,
  });
}
