/**
 * Resolves loaded config layers into one value per setting, each with the
 * layer it came from. Pure apart from loading the base-URL rules when a
 * custom endpoint needs them.
 *
 * Precedence, last wins: built-in → global → workspace → project. `[chat]`
 * keys resolve independently, except two coupled groups: `default_provider`
 * travels with the layer that supplied `default_model`; `allowed_commands`
 * and `allowed_command_globs` are owned together by the highest layer that
 * sets either.
 *
 * @module
 */
import type { ReasoningEffort } from "../../schema/agent.ts";
import { err, ok, type Result } from "../../schema/result.ts";
import { type CliFault, fault } from "../fault.ts";
import { inferProvider } from "../../llm/provider_table.ts";
import {
  type ResolvedProvider,
  resolveProviders,
} from "./provider_registry.ts";
import { findKeyLine } from "./lines.ts";
import type { LoadedFile } from "./load.ts";
import type { ChatTable } from "./schema.ts";
import {
  DEFAULT_FIRST_BYTE_TIMEOUT_MS,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_RESPONSE_BYTES,
  type StreamLimitOptions,
} from "../../llm/stream_limits.ts";

export type { ResolvedProvider } from "./provider_registry.ts";
import type { ConfigLayers, ConfigSource } from "./layers.ts";
export type { ConfigLayers, ConfigSource } from "./layers.ts";

/**
 * A value and its source.
 */
export interface Sourced<T> {
  value: T;
  source: ConfigSource;
}

/**
 * The resolved `[chat]` settings.
 */
export interface ResolvedChat {
  defaultModel: Sourced<string>;
  /** Absent when neither configured nor inferable from the model. */
  defaultProvider?: Sourced<string>;
  reasoningEffort?: Sourced<ReasoningEffort>;
  /** `full` is clamped to `project`. */
  fsScope: Sourced<"sandboxed" | "project">;
  allowedCommands: Sourced<string[]>;
  allowedCommandGlobs: Sourced<string[]>;
  allowedDomains: Sourced<string[]>;
  /** `run_command` and `!` timeout, ms (built-in 30 000, ceiling 120 000). */
  commandTimeoutMs: Sourced<number>;
  maxTurns: Sourced<number>;
  maxMessages?: Sourced<number>;
  autoCompact: Sourced<boolean>;
  compactThreshold: Sourced<number>;
  maxCostMicrocents: Sourced<number>;
  onExceed: Sourced<"fail" | "pause_for_approval" | "warn">;
  strictCostCap: Sourced<boolean>;
  /** Anthropic prompt caching (built-in `true`: on, 5 minutes). */
  promptCaching: Sourced<boolean | "5m" | "1h">;
  /** Provider calls' first-byte timeout, ms (built-in 60 000). */
  firstByteTimeoutMs: Sourced<number>;
  /** Provider calls' idle-stream timeout, ms (built-in 300 000). */
  idleTimeoutMs: Sourced<number>;
  /** Most bytes of one provider response (built-in 64 MiB). */
  maxResponseBytes: Sourced<number>;
}

/**
 * The stream bounds of `[chat]`, as the HTTP provider options name them.
 *
 * @param chat The resolved `[chat]` table.
 * @returns The three bounds.
 */
export function streamLimitsOf(chat: ResolvedChat): StreamLimitOptions {
  return {
    firstByteTimeoutMs: chat.firstByteTimeoutMs.value,
    idleTimeoutMs: chat.idleTimeoutMs.value,
    maxResponseBytes: chat.maxResponseBytes.value,
  };
}

/**
 * Every resolved setting; secret-free by construction (no key values).
 */
export interface ResolvedConfig {
  chat: ResolvedChat;
  defaults: {
    model?: Sourced<string>;
    fsScope: Sourced<"sandboxed" | "project">;
    maxTokensEstimate?: Sourced<number>;
  };
  variables: Record<string, Sourced<string>>;
  providers: ResolvedProvider[];
  /** One-line notices for stderr (e.g. the `full` clamp). */
  notices: string[];
}

/**
 * The built-in default model.
 */
export const DEFAULT_MODEL: string = "claude-sonnet-4-6";
const DEFAULT_MAX_TURNS = 50;
/** The default child-process timeout. */
const DEFAULT_COMMAND_TIMEOUT_MS = 30_000;

interface ChatLayer {
  source: ConfigSource;
  file: LoadedFile;
  table: ChatTable;
  path: string[];
}

function chatLayers(layers: ConfigLayers): ChatLayer[] {
  const out: ChatLayer[] = [];
  for (const f of [layers.project, layers.workspace, layers.global]) {
    if (f?.data.chat !== undefined) {
      out.push({ source: f.kind, file: f, table: f.data.chat, path: ["chat"] });
    }
  }
  return out;
}

function first<K extends keyof ChatTable>(
  list: ChatLayer[],
  key: K,
): Sourced<NonNullable<ChatTable[K]>> | undefined {
  for (const l of list) {
    const value = l.table[key];
    if (value !== undefined) return { value, source: l.source };
  }
  return undefined;
}

function at(file: LoadedFile, path: Array<string | number>): string {
  const line = findKeyLine(file.text, path);
  return line === undefined ? file.path : `${file.path}:${line}`;
}

function clampScope(
  v: Sourced<"sandboxed" | "project" | "full">,
  key: string,
  notices: string[],
): Sourced<"sandboxed" | "project"> {
  if (v.value !== "full") return { value: v.value, source: v.source };
  notices.push(
    `${key} = "full" is not available in this version; using "project"`,
  );
  return { value: "project", source: v.source };
}

function resolveModelGroup(
  layers: ConfigLayers,
  list: ChatLayer[],
): Result<Pick<ResolvedChat, "defaultModel" | "defaultProvider">, CliFault> {
  const candidates: ChatLayer[] = [...list];
  const prefs = layers.global?.data.preferences;
  if (layers.global !== undefined && prefs !== undefined) {
    candidates.push({
      source: "global",
      file: layers.global,
      table: {
        ...(prefs.default_model === undefined
          ? {}
          : { default_model: prefs.default_model }),
        ...(prefs.default_provider === undefined
          ? {}
          : { default_provider: prefs.default_provider }),
      },
      path: ["preferences"],
    });
  }
  for (const l of candidates) {
    if (
      l.table.default_provider !== undefined &&
      l.table.default_model === undefined
    ) {
      const key = [...l.path, "default_provider"];
      return err(fault(
        "invalid_config",
        `Invalid config: ${at(l.file, key)}: ${
          key.join(".")
        }: needs default_model in the same table (the provider travels with its model)`,
      ));
    }
  }
  const owner = candidates.find((l) => l.table.default_model !== undefined);
  const model: Sourced<string> = owner?.table.default_model !== undefined
    ? { value: owner.table.default_model, source: owner.source }
    : { value: DEFAULT_MODEL, source: "built-in" };
  const explicit = owner?.table.default_provider;
  if (explicit !== undefined && owner !== undefined) {
    return ok({
      defaultModel: model,
      defaultProvider: { value: explicit, source: owner.source },
    });
  }
  const inferred = inferProvider(model.value);
  return ok(
    inferred === undefined ? { defaultModel: model } : {
      defaultModel: model,
      defaultProvider: { value: inferred, source: "inferred" },
    },
  );
}

/**
 * Resolves the layers.
 *
 * @param layers The loaded files.
 * @param env Reads environment variables (`RELAVIUM_<ID>_BASE_URL`).
 * @returns The resolved config, or an `invalid_config` fault.
 */
export async function resolveConfig(
  layers: ConfigLayers,
  env: (name: string) => string | undefined,
): Promise<Result<ResolvedConfig, CliFault>> {
  const notices: string[] = [];
  const list = chatLayers(layers);
  const group = resolveModelGroup(layers, list);
  if (!group.ok) return group;
  const providers = await resolveProviders(layers, env);
  if (!providers.ok) return providers;
  const provider = group.value.defaultProvider;
  if (
    provider !== undefined && provider.source !== "inferred" &&
    !providers.value.some((p) => p.id === provider.value)
  ) {
    return err(fault(
      "invalid_config",
      `Invalid config: default_provider "${provider.value}" (from the ${provider.source} config) is neither built in nor declared in [[providers]]`,
    ));
  }
  const commandOwner = list.find((l) =>
    l.table.allowed_commands !== undefined ||
    l.table.allowed_command_globs !== undefined
  );
  const commandSource = commandOwner?.source ?? "built-in";
  const prefsEffort = layers.global?.data.preferences?.reasoning_effort;
  const effort = first(list, "reasoning_effort") ??
    (prefsEffort === undefined
      ? undefined
      : { value: prefsEffort, source: "global" as const });
  const maxMessages = first(list, "max_messages");
  const chat: ResolvedChat = {
    ...group.value,
    ...(effort === undefined ? {} : { reasoningEffort: effort }),
    fsScope: clampScope(
      first(list, "fs_scope") ?? { value: "sandboxed", source: "built-in" },
      "[chat].fs_scope",
      notices,
    ),
    allowedCommands: {
      value: commandOwner?.table.allowed_commands ?? [],
      source: commandSource,
    },
    allowedCommandGlobs: {
      value: commandOwner?.table.allowed_command_globs ?? [],
      source: commandSource,
    },
    allowedDomains: first(list, "allowed_domains") ??
      { value: [], source: "built-in" },
    commandTimeoutMs: first(list, "command_timeout_ms") ??
      { value: DEFAULT_COMMAND_TIMEOUT_MS, source: "built-in" },
    maxTurns: first(list, "max_turns") ??
      { value: DEFAULT_MAX_TURNS, source: "built-in" },
    ...(maxMessages === undefined ? {} : { maxMessages }),
    autoCompact: first(list, "auto_compact") ??
      { value: true, source: "built-in" },
    compactThreshold: first(list, "compact_threshold") ??
      { value: 0.8, source: "built-in" },
    maxCostMicrocents: first(list, "max_cost_microcents") ??
      { value: 0, source: "built-in" },
    onExceed: first(list, "on_exceed") ??
      { value: "pause_for_approval", source: "built-in" },
    strictCostCap: first(list, "strict_cost_cap") ??
      { value: false, source: "built-in" },
    promptCaching: first(list, "prompt_caching") ??
      { value: true, source: "built-in" },
    firstByteTimeoutMs: first(list, "first_byte_timeout_ms") ??
      { value: DEFAULT_FIRST_BYTE_TIMEOUT_MS, source: "built-in" },
    idleTimeoutMs: first(list, "idle_timeout_ms") ??
      { value: DEFAULT_IDLE_TIMEOUT_MS, source: "built-in" },
    maxResponseBytes: first(list, "max_response_bytes") ??
      { value: DEFAULT_MAX_RESPONSE_BYTES, source: "built-in" },
  };
  const defaults: ResolvedConfig["defaults"] = {
    fsScope: { value: "sandboxed", source: "built-in" },
  };
  const variables: Record<string, Sourced<string>> = {};
  for (const f of [layers.workspace, layers.project]) {
    const d = f?.data.defaults;
    if (f === undefined) continue;
    if (d?.model !== undefined) {
      defaults.model = { value: d.model, source: f.kind };
    }
    if (d?.fs_scope !== undefined) {
      defaults.fsScope = clampScope(
        { value: d.fs_scope, source: f.kind },
        "[defaults].fs_scope",
        notices,
      );
    }
    if (d?.max_tokens_estimate !== undefined) {
      defaults.maxTokensEstimate = {
        value: d.max_tokens_estimate,
        source: f.kind,
      };
    }
    for (const [k, value] of Object.entries(f.data.variables ?? {})) {
      variables[k] = { value, source: f.kind };
    }
  }
  return ok({ chat, defaults, variables, providers: providers.value, notices });
}
