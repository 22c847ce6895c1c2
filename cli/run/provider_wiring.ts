/**
 * Wires the providers of a session's plan through the library's registry:
 * a cassette's replay under `--fixture`, else the registry's adapters with
 * base URLs gated and keys checked before the session starts (a missing
 * primary key is exit 2; a fallback entry without a key is skipped with
 * one warning), recorded under `--record`.
 *
 * @module
 */
import type { ProviderRegistry } from "../../llm/provider_registry.ts";
import { BUILTIN_PROVIDERS } from "../../llm/provider_table.ts";
import type { Replay } from "../../llm/replay_provider.ts";
import type { Agent } from "../../schema/agent.ts";
import { err, ok, type Result } from "../../schema/result.ts";
import type { ResolvedProvider } from "../config/resolve.ts";
import type { ResolveDns } from "./provider_dns.ts";
import { type CliFault, fault } from "../fault.ts";
import { readKey, registryOf } from "./keys.ts";
import type { FileRecorder } from "./record.ts";

/**
 * Providers and keys for one session.
 */
export interface ProviderWiring {
  /** The registry of the resolved providers. */
  registry: ProviderRegistry;
  /** The cassette replay under `--fixture`. */
  replay?: Replay;
  /** The `--record` recorder (wraps every real provider). */
  recorder?: FileRecorder;
  /** The agent to run. */
  agent: Agent;
  /** One line per skipped fallback entry or ignored price, for stderr. */
  warnings: string[];
  /** Every configured key: refused in tool arguments, redacted where kept. */
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
  /** DNS lookup for the custom endpoints' hosts; absent ⇒ not looked up. */
  resolveDns?: ResolveDns;
}

/**
 * The base-URL gate, right before any request: the config loader checks
 * the same rules with the file and line; this keeps a URL that slipped
 * past it from ever being called. The SSRF rules load only for a provider
 * with a custom base URL.
 */
async function gateBaseUrl(
  p: ResolvedProvider,
): Promise<CliFault | undefined> {
  if (p.baseUrl === undefined) return undefined;
  const { checkBaseUrl } = await import("../config/base_url.ts");
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
 * either loads the `--fixture` cassette, or checks the real endpoints
 * (base URLs gated, the primary's key required, a keyless fallback warned
 * about once) and opens the `--record` recorder when asked.
 *
 * @param agent The agent (primary and fallback chain).
 * @param options Providers, environment, cwd, `--fixture`/`--record`.
 * @returns The wiring, or a fault: `provider_config` (unknown provider,
 * bad base URL), `provider_auth` (no key for the primary),
 * `invalid_cassette` / `not_found` (the cassette), `usage` (`--record`
 * with `--fixture`, or a folder as `--record` target).
 */
export async function wireProviders(
  agent: Agent,
  options: WiringOptions,
): Promise<Result<ProviderWiring, CliFault>> {
  const ids = [
    agent.provider,
    ...(agent.fallback_chain ?? []).map((f) => f.provider),
  ];
  const providerOf = (id: string): ResolvedProvider | undefined =>
    options.providers.find((x) => x.id === id);
  for (const id of ids) {
    if (providerOf(id) === undefined) {
      return err(fault(
        "provider_config",
        `Unknown provider "${id}": use a built-in id (${
          Object.keys(BUILTIN_PROVIDERS).join(", ")
        }) or declare it in [[providers]]`,
      ));
    }
  }
  if (options.fixture !== undefined && options.record !== undefined) {
    return err(
      fault("usage", "Options --record and --fixture cannot be combined"),
    );
  }
  const registry = registryOf(options.providers);
  const warnings = registry.notices();
  const secrets = registry.configuredKeys({ get: options.env });
  const wired = { registry, agent, warnings, secrets };
  if (options.fixture !== undefined) {
    // Only a --fixture run loads the cassette parser and replay provider.
    const { loadFixture } = await import("./fixture.ts");
    const replay = await loadFixture(options.fixture, {
      cwd: options.cwd,
      primaryProvider: agent.provider,
    });
    return replay.ok ? ok({ ...wired, replay: replay.value }) : replay;
  }
  // An effort an endpoint will not carry is said once, not dropped silently.
  const tools = (agent.tools?.length ?? 0) > 0 ||
    (agent.mcp_servers?.length ?? 0) > 0;
  warnings.push(
    ...registry.notices([agent, ...(agent.fallback_chain ?? [])].map((f) => ({
      provider: f.provider,
      model: f.model,
      tools,
      ...(agent.reasoning_effort === undefined
        ? {}
        : { reasoningEffort: agent.reasoning_effort }),
    }))).filter((line) => !warnings.includes(line)),
  );
  for (const id of ids) {
    const bad = await gateBaseUrl(providerOf(id) as ResolvedProvider);
    if (bad !== undefined) return err(bad);
  }
  if (options.resolveDns !== undefined) {
    for (const id of ids) {
      const p = providerOf(id) as ResolvedProvider;
      // Built-in endpoints are not looked up: the check loads for a custom
      // base URL only.
      if (p.baseUrl === undefined) continue;
      const { checkProviderDns } = await import("./provider_dns.ts");
      const verdict = await checkProviderDns(p, options.resolveDns);
      if (verdict.kind === "refused") return err(verdict.fault);
    }
  }
  const primaryKey = readKey(agent.provider, { registry, env: options.env });
  if (!primaryKey.ok) return primaryKey;
  for (const f of agent.fallback_chain ?? []) {
    const status = registry.lookupKey(f.provider, { get: options.env });
    if (status.status === "missing") {
      // Kept in the plan: the chain skips it (reason no_key).
      warnings.push(
        `Skipping fallback ${f.provider}/${f.model}: no API key (set ${
          status.tried.join(" or ")
        })`,
      );
    }
  }
  if (options.record === undefined) return ok(wired);
  const { openRecorder } = await import("./record.ts");
  const recorder = await openRecorder(options.record, {
    cwd: options.cwd,
    primaryProvider: agent.provider,
    model: agent.model,
    secrets,
  });
  return recorder.ok ? ok({ ...wired, recorder: recorder.value }) : recorder;
}
