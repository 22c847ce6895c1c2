/**
 * Wires the providers of a session's plan: a cassette's replay providers
 * under `--fixture`, else the real adapters with their
 * base URLs gated and keys checked before the session starts
 * (a missing primary key is exit 2; a fallback entry
 * without a key is skipped with one warning), recorded under `--record`.
 *
 * @module
 */
import type { ListableCatalog } from "../../llm/create_catalog.ts";
import type { FetchFn } from "../../llm/http.ts";
import type { LlmProvider } from "../../llm/provider.ts";
import type { Replay } from "../../llm/replay_provider.ts";
import type { Agent } from "../../schema/agent.ts";
import { err, ok, type Result } from "../../schema/result.ts";
import { checkBaseUrl } from "../config/base_url.ts";
import type { ResolvedProvider } from "../config/resolve.ts";
import type { StreamLimitOptions } from "../../llm/_watchdog.ts";
import { checkProviderDns, type ResolveDns } from "./provider_dns.ts";
import { type CliFault, fault } from "../fault.ts";
import { configuredKeys, lookupKey, readKey } from "./keys.ts";
import { providerCatalog } from "./provider_catalog.ts";
import type { Recorder } from "./record.ts";

/**
 * Providers and keys for one session.
 */
export interface ProviderWiring {
  /** Provider by id (`undefined` = not wired). */
  resolveProvider(id: string): LlmProvider | undefined;
  /**
   * The key for a provider; throws when it is missing (the chain then
   * skips a fallback entry, reason `no_key`, or fails the primary as
   * `auth`). A local provider without a key gets `""` (no auth header).
   */
  keyFor(id: string): string;
  /** The cassette replay under `--fixture`. */
  replay?: Replay;
  /** The `--record` recorder (wraps every real provider). */
  recorder?: Recorder;
  /**
   * The agent to run: fallback entries whose provider has no adapter in
   * this version removed (entries without a key stay: the chain skips
   * them).
   */
  agent: Agent;
  /** One line per skipped fallback entry or ignored price, for stderr. */
  warnings: string[];
  /** The model catalog: bundled models plus `[[providers]]` prices. */
  catalog?: ListableCatalog;
  /**
   * Every configured key (see `configuredKeys`), with or without
   * `--fixture`: refused in tool arguments, redacted from what is kept.
   */
  secrets: readonly string[];
}

/**
 * Inputs of {@linkcode wireProviders}.
 */
export interface WiringOptions {
  /** The resolved providers (built-in and `[[providers]]`). */
  providers: readonly ResolvedProvider[];
  /** Reads environment variables. */
  env(name: string): string | undefined;
  /** The effective cwd (for a relative `--fixture` or `--record`). */
  cwd: string;
  /** `--fixture <cassette>`. */
  fixture?: string;
  /** `--record <cassette>` (never with `--fixture`). */
  record?: string;
  /** The transport of the real adapters (default: the global `fetch`). */
  fetch?: FetchFn;
  /** Epoch ms for `retry-after` dates (default `Date.now`). */
  now?(): number;
  /** `[chat].prompt_caching` for the real adapters (default on). */
  promptCaching?: boolean | "5m" | "1h";
  /** `[chat]`'s stream bounds for the real adapters. */
  limits?: StreamLimitOptions;
  /**
   * DNS lookup for the custom endpoints' hosts (every answer is checked
   * before the session); absent ⇒ not looked up.
   */
  resolveDns?: ResolveDns;
  /**
   * Builds the adapter of a configured provider; default: the real
   * adapters of `provider_adapters.ts` (`undefined` ⇒ none, e.g. gemini).
   */
  adapter?(
    provider: ResolvedProvider,
    catalog: ListableCatalog,
  ): LlmProvider | undefined;
}

type AdapterFactory = NonNullable<WiringOptions["adapter"]>;

async function realAdapters(options: WiringOptions): Promise<AdapterFactory> {
  if (options.adapter !== undefined) return options.adapter;
  // Only sessions without --fixture load the HTTP adapters.
  const { createAdapter } = await import("./provider_adapters.ts");
  const fetchFn: FetchFn = options.fetch ?? ((u, init) => fetch(u, init));
  const now = options.now ?? (() => Date.now());
  const caching = {
    ...(options.promptCaching === undefined
      ? {}
      : { promptCaching: options.promptCaching }),
    ...(options.limits === undefined ? {} : { limits: options.limits }),
  };
  return (p, catalog) =>
    createAdapter(p, { fetch: fetchFn, catalog, now, ...caching });
}

/**
 * The base-URL gate, right before any
 * request: the config loader checks the same rules with the file and
 * line; this keeps a URL that slipped past it from ever being called.
 */
function gateBaseUrl(p: ResolvedProvider): CliFault | undefined {
  if (p.baseUrl === undefined) return undefined;
  const fromEnv = p.baseUrlSource === "env";
  const problem = checkBaseUrl(p.baseUrl, fromEnv ? false : p.allowLocal);
  if (problem === undefined) return undefined;
  const key = fromEnv
    ? `RELAVIUM_${p.id.toUpperCase().replaceAll("-", "_")}_BASE_URL`
    : `[[providers]].base_url of "${p.id}" (${
      p.baseUrlSource ?? p.source
    } config)`;
  return fault("provider_config", `Invalid ${key}: ${problem}`);
}

/**
 * Wires the providers of `agent`'s plan: checks every provider id, then
 * either loads the `--fixture` cassette, or builds the real adapters
 * (base URLs gated, the primary's key required, a keyless fallback
 * warned about once), wrapped by the `--record` recorder when asked.
 *
 * @param agent The agent (primary and fallback chain).
 * @param options Providers, environment, cwd, `--fixture`/`--record`,
 * transport.
 * @returns The wiring, or a fault: `provider_config` (unknown provider,
 * no adapter in this version, bad base URL), `provider_auth` (no key for
 * the primary), `invalid_cassette` / `not_found` (the cassette), `usage`
 * (`--record` with `--fixture`, or a folder as `--record` target).
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
  if (options.fixture !== undefined && options.record !== undefined) {
    return err(
      fault("usage", "Options --record and --fixture cannot be combined"),
    );
  }
  const { catalog, notices } = providerCatalog(options.providers);
  const secrets = configuredKeys(options);
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
      warnings: notices,
      catalog,
      secrets,
    });
  }
  const providerOf = (id: string): ResolvedProvider | undefined =>
    options.providers.find((x) => x.id === id);
  for (const id of ids) {
    const p = providerOf(id);
    const bad = p === undefined ? undefined : gateBaseUrl(p);
    if (bad !== undefined) return err(bad);
  }
  if (options.resolveDns !== undefined) {
    for (const id of ids) {
      const p = providerOf(id);
      if (p === undefined) continue;
      const verdict = await checkProviderDns(p, options.resolveDns);
      if (verdict.kind === "refused") return err(verdict.fault);
    }
  }
  let recorder: Recorder | undefined;
  if (options.record !== undefined) {
    const { openRecorder } = await import("./record.ts");
    const opened = await openRecorder(options.record, {
      cwd: options.cwd,
      primaryProvider: agent.provider,
      model: agent.model,
      secrets,
    });
    if (!opened.ok) return opened;
    recorder = opened.value;
  }
  const build = await realAdapters(options);
  const adapters = new Map<string, LlmProvider>();
  const adapterOf = (id: string): LlmProvider | undefined => {
    const known = adapters.get(id);
    if (known !== undefined) return known;
    const p = providerOf(id);
    const made = p === undefined ? undefined : build(p, catalog);
    if (made === undefined) return undefined;
    const wired = recorder === undefined ? made : recorder.wrap(id, made);
    adapters.set(id, wired);
    return wired;
  };
  if (adapterOf(agent.provider) === undefined) {
    return err(fault(
      "provider_config",
      `No adapter for provider "${agent.provider}" in this version: use another provider, or replay a cassette with --fixture`,
    ));
  }
  const keys = { providers: options.providers, env: options.env };
  const primaryKey = readKey(agent.provider, keys);
  if (!primaryKey.ok) return primaryKey;
  const warnings: string[] = [...notices];
  const chain = (agent.fallback_chain ?? []).filter((f) => {
    if (adapterOf(f.provider) === undefined) {
      warnings.push(
        `Skipping fallback ${f.provider}/${f.model}: no adapter for ${f.provider} in this version`,
      );
      return false;
    }
    const status = lookupKey(f.provider, keys);
    if (status.status === "missing") {
      // Kept in the plan: the chain skips it (reason no_key).
      warnings.push(
        `Skipping fallback ${f.provider}/${f.model}: no API key (set ${
          status.tried.join(" or ")
        })`,
      );
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
    ...(recorder === undefined ? {} : { recorder }),
    agent: chain.length > 0 ? { ...rest, fallback_chain: chain } : rest,
    warnings,
    catalog,
    secrets,
  });
}
