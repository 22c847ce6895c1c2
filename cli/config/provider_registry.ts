/**
 * The provider registry the CLI routes to: built-in ids plus
 * `[[providers]]` entries, with base-URL overrides from the environment.
 *
 * @module
 */
import type { ResolvedEntry } from "../../llm/provider_registry.ts";
import { BUILTIN_PROVIDERS } from "../../llm/provider_table.ts";
import { err, ok, type Result } from "../../schema/result.ts";
import { type CliFault, fault } from "../fault.ts";
import type { ConfigLayers, ConfigSource } from "./layers.ts";

/**
 * A provider the CLI can route to (built-in or `[[providers]]`): the
 * library's registry entry plus where it came from.
 */
export interface ResolvedProvider extends ResolvedEntry {
  /** Whether it may be local and keyless (`allow_local`). */
  allowLocal: boolean;
  /** The config layer that declared it (`built-in` for the built-ins). */
  source: ConfigSource;
  /** Where the base URL came from, when set. */
  baseUrlSource?: ConfigSource;
}

function limitsOf(
  p: {
    first_byte_timeout_ms?: number;
    idle_timeout_ms?: number;
    max_response_bytes?: number;
  },
): Partial<ResolvedEntry> {
  return {
    ...(p.first_byte_timeout_ms === undefined
      ? {}
      : { firstByteTimeoutMs: p.first_byte_timeout_ms }),
    ...(p.idle_timeout_ms === undefined
      ? {}
      : { idleTimeoutMs: p.idle_timeout_ms }),
    ...(p.max_response_bytes === undefined
      ? {}
      : { maxResponseBytes: p.max_response_bytes }),
  };
}

/**
 * Resolves the provider registry: the built-ins, then `[[providers]]` of
 * the global, workspace and project files (a higher layer's entry replaces
 * a lower one with the same id whole), then
 * `RELAVIUM_<ID>_BASE_URL` overrides (public https only). The base-URL
 * rules (and the SSRF primitive under them) load only when there is a
 * custom endpoint to check.
 *
 * @param layers The loaded files.
 * @param env Reads environment variables.
 * @returns The providers, or an `invalid_config` fault for a bad override.
 */
export async function resolveProviders(
  layers: ConfigLayers,
  env: (name: string) => string | undefined,
): Promise<Result<ResolvedProvider[], CliFault>> {
  const rules = (): Promise<typeof import("./base_url.ts")> =>
    import("./base_url.ts");
  const byId = new Map<string, ResolvedProvider>();
  for (const [id, row] of Object.entries(BUILTIN_PROVIDERS)) {
    byId.set(id, {
      id,
      kind: row.kind,
      builtIn: true,
      allowLocal: false,
      source: "built-in",
    });
  }
  for (const f of [layers.global, layers.workspace, layers.project]) {
    for (const p of f?.data.providers ?? []) {
      const { normalizeBaseUrl } = await rules();
      byId.set(p.id, {
        id: p.id,
        kind: p.kind,
        builtIn: false,
        baseUrl: normalizeBaseUrl(p.base_url),
        baseUrlSource: f?.kind ?? "global",
        ...(p.api_key_env === undefined ? {} : { apiKeyEnv: p.api_key_env }),
        allowLocal: p.allow_local === true,
        source: f?.kind ?? "global",
        ...(p.max_tokens_param === undefined
          ? {}
          : { maxTokensParam: p.max_tokens_param }),
        ...(p.prices === undefined ? {} : { prices: p.prices }),
        ...(p.context_window === undefined
          ? {}
          : { contextWindow: p.context_window }),
        ...(p.dialect === undefined ? {} : { dialect: p.dialect }),
        ...(p.reasoning === undefined ? {} : { reasoning: p.reasoning }),
        ...limitsOf(p),
      });
    }
  }
  for (const p of byId.values()) {
    const name = `RELAVIUM_${p.id.toUpperCase().replaceAll("-", "_")}_BASE_URL`;
    const url = env(name);
    if (url === undefined || url === "") continue;
    const { checkBaseUrl, classifyHost, normalizeBaseUrl } = await rules();
    let host = "";
    try {
      host = new URL(url).hostname;
    } catch {
      // checkBaseUrl names the problem
    }
    const problem = checkBaseUrl(url, false) === undefined
      ? undefined
      : classifyHost(host) !== "public"
      ? "must be a public https URL (allow_local applies only to [[providers]] entries)"
      : checkBaseUrl(url, false);
    if (problem !== undefined) {
      return err(fault("invalid_config", `Invalid ${name}: ${problem}`));
    }
    p.baseUrl = normalizeBaseUrl(url);
    p.baseUrlSource = "env";
  }
  return ok([...byId.values()]);
}
