/**
 * The provider registry: the built-in ids of the provider table plus the
 * caller's own entries (a custom endpoint of any kind), and the one place
 * that turns an id into an adapter, its key variables and its prices.
 * The CLI's `[[providers]]` entries, a library user's endpoints and the
 * runtime all go through it.
 *
 * @module
 */
import type { ModelCatalog, ModelInfo } from "./catalog.ts";
import { createCatalog, type ListableCatalog } from "./create_catalog.ts";
import { endpointFace, resolveEndpoint } from "./_endpoint.ts";
import type { FetchFn } from "./http.ts";
import {
  type EnvReader,
  MissingKeyError,
  providerKeyVariables,
} from "./keys.ts";
import type { LlmProvider, LlmRequest } from "./provider.ts";
import { openAiRoute } from "./catalog_data.ts";
import { chatReasoning } from "./openai/_reasoning.ts";
import { lazyProvider } from "./_lazy_provider.ts";
import {
  type AdapterOptions,
  BUILTIN_PROVIDERS,
  builtinRow,
  inferProvider,
  PROVIDER_KINDS,
  type ProviderKind,
} from "./provider_table.ts";
import { streamLimits } from "./stream_limits.ts";

/**
 * A provider of the caller's own: an endpoint of one of the kinds (a
 * local server, a proxy, a compatible vendor), or a built-in id with
 * another base URL. Its stream bounds, when set, win over the runtime's.
 */
export interface ProviderEntry extends Omit<AdapterSettings, "promptCaching"> {
  /** The provider id an agent names (`provider:`). */
  id: string;
  /** The wire API; default the built-in id's own (required for a new id). */
  kind?: ProviderKind;
  /** The endpoint (a custom endpoint: overflows downgraded, window unknown). */
  baseUrl?: string;
  /**
   * Whether the endpoint may be a loopback or private address and may be
   * called without a key (no auth header is sent).
   */
  allowLocal?: boolean;
  /** The variable holding its key (default `RELAVIUM_<ID>_API_KEY`). */
  apiKeyEnv?: string;
  /** The endpoint's window in tokens (else unknown). */
  contextWindow?: number;
  /** Whether its models take a reasoning effort. */
  reasoning?: boolean;
  /** Chat Completions: the field that carries the output cap. */
  maxTokensParam?: "max_tokens" | "max_completion_tokens";
  /** Chat Completions: the dialect. */
  dialect?: "openai" | "deepseek";
  /**
   * Prices of its models in integer micro-cents per million tokens (1 µ¢
   * = 1e-8 USD): input, output, cached input (`cache_read`, default 0) and
   * cache writes (`cache_write`, default 0). A model the bundled catalog
   * prices keeps those.
   */
  prices?: Readonly<
    Record<
      string,
      {
        input: number;
        output: number;
        cache_read?: number;
        cache_write?: number;
      }
    >
  >;
}

/**
 * Settings every adapter of a registry is built with: prompt caching and
 * the stream bounds of entries that set none of their own.
 */
export interface AdapterSettings {
  /** Anthropic prompt caching (default on, 5 minutes). */
  promptCaching?: boolean | "5m" | "1h";
  /** First-byte timeout, ms (default 60 000). */
  firstByteTimeoutMs?: number;
  /** Idle-stream timeout, ms (default 300 000). */
  idleTimeoutMs?: number;
  /** Most bytes of one response (default 64 MiB). */
  maxResponseBytes?: number;
}

/** What one adapter is built with. */
type AdapterDeps = Parameters<ProviderRegistry["create"]>[1];

/** A key lookup's outcome, naming variables, never the key. */
type KeyStatus = ReturnType<ProviderRegistry["lookupKey"]>;

/**
 * The providers a session can route to.
 */
export interface ProviderRegistry {
  /** Every id: the built-ins, then the caller's new ones. */
  ids(): string[];
  /** The provider of a model id, from the built-in rows. */
  inferProvider(model: string): string | undefined;
  /** The variables consulted for an id's key, in order. */
  keyVariables(id: string): string[];
  /**
   * Which variable holds an id's key, without revealing it: found (which
   * variable), not needed (an `allowLocal` entry without one), or missing
   * (the variables tried).
   */
  lookupKey(
    id: string,
    env: EnvReader,
  ):
    | { status: "found"; variable: string }
    | { status: "no-auth"; tried: string[] }
    | { status: "missing"; tried: string[] };
  /**
   * An id's key; `""` for an `allowLocal` entry without one.
   *
   * @throws {MissingKeyError} When no variable holds it.
   */
  keyFor(id: string, env: EnvReader): string;
  /** Every configured key: the value of each variable any id reads. */
  configuredKeys(env: EnvReader): string[];
  /** The bundled catalog plus the entries' prices. */
  catalog(): ModelCatalog;
  /**
   * One line per price the bundled catalog overrides (ignored), and, for
   * the calls a session plans, one line per reasoning effort an endpoint
   * will not carry: a custom OpenAI-family endpoint not declared to
   * reason, or a Chat Completions endpoint whose model takes function
   * tools only with effort `none` (sent in its place). Each line once.
   */
  notices(
    plan?: readonly {
      /** The provider id. */
      provider: string;
      /** The model id. */
      model: string;
      /** The effort the session asks for. */
      reasoningEffort?: LlmRequest["reasoningEffort"];
      /** Whether its requests carry function tools. */
      tools?: boolean;
    }[],
  ): string[];
  /**
   * Builds an id's adapter. Its module loads on its first call; bad
   * options throw here.
   *
   * @throws {TypeError} For a bad base URL or transport.
   * @throws {RangeError} For a bad stream bound.
   */
  create(
    id: string,
    deps: AdapterSettings & {
      /** The transport. */
      fetch: FetchFn;
      /** The catalog (default: the registry's). */
      catalog?: ModelCatalog;
      /** Epoch ms, to read `retry-after` HTTP dates. */
      now?: () => number;
    },
  ): LlmProvider | undefined;
}

/**
 * An entry with its kind known and whether it is a built-in id.
 */
export interface ResolvedEntry extends ProviderEntry {
  /** The wire API. */
  kind: ProviderKind;
  /** Whether the id is a built-in one. */
  builtIn: boolean;
}

function resolveEntries(
  entries: readonly ProviderEntry[],
): Map<string, ResolvedEntry> {
  const byId = new Map<string, ResolvedEntry>();
  for (const [id, row] of Object.entries(BUILTIN_PROVIDERS)) {
    byId.set(id, { id, kind: row.kind, builtIn: true });
  }
  for (const e of entries) {
    const row = builtinRow(e.id);
    const kind = e.kind ?? row?.kind;
    if (kind === undefined) {
      throw new TypeError(
        `Invalid provider entry ${
          JSON.stringify(e.id)
        }: kind is required for an id that is not built in`,
      );
    }
    if (!Object.hasOwn(PROVIDER_KINDS, kind)) {
      throw new TypeError(
        `Invalid provider entry ${JSON.stringify(e.id)}: unknown kind ${
          JSON.stringify(kind)
        }`,
      );
    }
    if (row === undefined && e.baseUrl === undefined) {
      throw new TypeError(
        `Invalid provider entry ${
          JSON.stringify(e.id)
        }: baseUrl is required for an id that is not built in`,
      );
    }
    byId.set(e.id, { ...e, kind, builtIn: row !== undefined });
  }
  return byId;
}

function pricedModels(
  entries: Iterable<ResolvedEntry>,
): { catalog: ListableCatalog; notices: string[] } {
  const bundled = createCatalog();
  const byModel = new Map<string, ModelInfo>();
  const notices: string[] = [];
  for (const p of entries) {
    for (const [model, price] of Object.entries(p.prices ?? {})) {
      if (bundled.lookup(model) !== undefined) {
        notices.push(
          `[[providers]] ${p.id}: the price of ${model} is ignored (the bundled catalog prices it)`,
        );
        continue;
      }
      byModel.set(model, {
        provider: p.id,
        id: model,
        // Unknown: a custom endpoint's window is never authoritative.
        contextWindowTokens: 0,
        maxOutputTokens: 0,
        inputPerMtokMicrocents: price.input,
        outputPerMtokMicrocents: price.output,
        cachedInputPerMtokMicrocents: price.cache_read ?? 0,
        ...(price.cache_write === undefined
          ? {}
          : { cacheWritePerMtokMicrocents: price.cache_write }),
      });
    }
  }
  return { catalog: createCatalog([...byModel.values()]), notices };
}

/**
 * Builds the provider registry: the built-in ids (`anthropic`, `openai`,
 * `gemini`, `deepseek`) plus your entries. An entry with a built-in id
 * changes that provider (e.g. its base URL); a new id needs a `kind` and
 * a `baseUrl`.
 *
 * @param entries Your providers.
 * @returns The registry.
 * @throws {TypeError} When an entry has no kind or base URL it needs.
 *
 * @example A local OpenAI-compatible server
 * ```ts
 * import { createProviderRegistry } from "@relavium/session/llm";
 * import assert from "node:assert/strict";
 * const registry = createProviderRegistry([
 *   { id: "local", kind: "openai-compatible", baseUrl: "http://127.0.0.1:8080/v1", allowLocal: true },
 * ]);
 * assert.equal(registry.keyFor("local", { get: () => undefined }), "");
 * assert.equal(registry.create("local", { fetch })?.customEndpoint, true);
 * assert.equal(registry.inferProvider("claude-sonnet-4-6"), "anthropic");
 * ```
 */
export function createProviderRegistry(
  entries: readonly ProviderEntry[] = [],
): ProviderRegistry {
  const byId = resolveEntries(entries);
  let priced: { catalog: ListableCatalog; notices: string[] } | undefined;
  const prices = () => (priced ??= pricedModels(byId.values()));
  function keyVariables(id: string): string[] {
    const named = byId.get(id)?.apiKeyEnv;
    return named === undefined ? providerKeyVariables(id) : [named];
  }
  // Each variable is read once: the first non-empty one holds the key.
  function firstSet(
    tried: readonly string[],
    env: EnvReader,
  ): { variable: string; value: string } | undefined {
    for (const variable of tried) {
      const value = env.get(variable);
      if (value !== undefined && value !== "") return { variable, value };
    }
    return undefined;
  }
  function lookupKey(id: string, env: EnvReader): KeyStatus {
    const tried = keyVariables(id);
    const found = firstSet(tried, env);
    if (found !== undefined) {
      return { status: "found", variable: found.variable };
    }
    if (byId.get(id)?.allowLocal === true) return { status: "no-auth", tried };
    return { status: "missing", tried };
  }
  return {
    ids: () => [...byId.keys()],
    inferProvider,
    keyVariables,
    lookupKey,
    keyFor(id, env) {
      const tried = keyVariables(id);
      const found = firstSet(tried, env);
      if (found !== undefined) return found.value;
      if (byId.get(id)?.allowLocal === true) return "";
      throw new MissingKeyError(id, tried);
    },
    configuredKeys(env) {
      const keys = new Set<string>();
      for (const id of byId.keys()) {
        for (const variable of keyVariables(id)) {
          const value = env.get(variable);
          if (value !== undefined && value !== "") keys.add(value);
        }
      }
      return [...keys];
    },
    catalog: () => prices().catalog,
    notices(plan = []) {
      const lines = [...prices().notices];
      for (const call of plan) {
        const e = byId.get(call.provider);
        if (e === undefined || call.reasoningEffort === undefined) continue;
        const line = effortNotice(e, call, prices().catalog);
        if (line !== undefined && !lines.includes(line)) lines.push(line);
      }
      return lines;
    },
    create(id, deps) {
      const e = byId.get(id);
      if (e === undefined) return undefined;
      const row = PROVIDER_KINDS[e.kind];
      const official = e.builtIn ? builtinRow(id)?.baseUrl : undefined;
      const custom = e.baseUrl !== undefined;
      const catalog = deps.catalog ?? prices().catalog;
      const options: AdapterOptions = {
        id,
        fetch: deps.fetch,
        catalog,
        ...(deps.now === undefined ? {} : { now: deps.now }),
        ...(deps.promptCaching === undefined
          ? {}
          : { promptCaching: deps.promptCaching }),
        baseUrl: e.baseUrl ?? official ?? "",
        customEndpoint: custom,
        ...bound("firstByteTimeoutMs", e, deps),
        ...bound("idleTimeoutMs", e, deps),
        ...bound("maxResponseBytes", e, deps),
        ...(e.contextWindow === undefined
          ? {}
          : { contextWindow: e.contextWindow }),
        ...(e.reasoning === undefined
          ? {}
          : { supports: { reasoning: e.reasoning } }),
        ...(e.maxTokensParam === undefined
          ? {}
          : { maxTokensParam: e.maxTokensParam }),
        ...dialectOf(e),
      };
      // Checked now, as an eager adapter would: bad options throw here.
      resolveEndpoint(options, official ?? options.baseUrl ?? "");
      streamLimits(options);
      return lazyProvider(
        {
          id,
          kind: row.reports,
          supports: { ...row.supports(custom), ...options.supports },
          ...endpointFace(catalog, custom, e.contextWindow),
        },
        () => row.load().then((make) => make(options)),
      );
    },
  };
}

type BoundKey = "firstByteTimeoutMs" | "idleTimeoutMs" | "maxResponseBytes";

function bound(
  key: BoundKey,
  entry: ProviderEntry,
  deps: AdapterDeps,
): Partial<Record<BoundKey, number>> {
  const value = entry[key] ?? deps[key];
  return value === undefined ? {} : { [key]: value };
}

function dialectOf(e: ResolvedEntry): { dialect?: "openai" | "deepseek" } {
  const dialect = e.dialect ??
    (e.builtIn ? builtinRow(e.id)?.dialect : undefined);
  return dialect === undefined ? {} : { dialect };
}

/**
 * The notice for an effort `e` will not carry on a call, if any: a custom
 * endpoint of a kind that is not assumed to reason drops it (unless the
 * entry declares `reasoning`), and Chat Completions sends `none` in its
 * place where the model takes function tools only with `none`.
 */
function effortNotice(
  e: ResolvedEntry,
  call: {
    model: string;
    reasoningEffort?: LlmRequest["reasoningEffort"];
    tools?: boolean;
  },
  catalog: ModelCatalog,
): string | undefined {
  const custom = e.baseUrl !== undefined;
  const effort = JSON.stringify(call.reasoningEffort);
  const reasons = e.reasoning ??
    PROVIDER_KINDS[e.kind].supports(custom).reasoning;
  if (!reasons) {
    return `${e.id}: reasoning effort ${effort} is not sent to ${call.model} (a custom endpoint is not assumed to reason; declare reasoning = true to send it)`;
  }
  if (e.kind !== "openai-compatible" || call.tools !== true) return undefined;
  const dialect = dialectOf(e).dialect ?? "openai";
  const info = catalog.lookup(call.model);
  if (dialect !== "openai") return undefined;
  if (!custom && e.builtIn && openAiRoute(call.model, info) === "responses") {
    return undefined;
  }
  const wire = chatReasoning(dialect, {
    model: call.model,
    tools: [{ name: "tool", parameters: {} }],
    ...(call.reasoningEffort === undefined
      ? {}
      : { reasoningEffort: call.reasoningEffort }),
  }, info);
  if (wire.kind !== "fields" || wire.dropped === undefined) return undefined;
  return `${e.id}: ${call.model} takes function tools on Chat Completions only with reasoning effort "none", which is sent instead of ${
    JSON.stringify(wire.dropped)
  } (declare the endpoint with kind = "openai-responses" to carry the effort)`;
}
