/**
 * What an untrusted project file may still set: only what narrows the
 * settings below it (the global file, or the global file and the
 * workspace file under `project.toml`). Pure.
 *
 * Every key of `[chat]` and `[defaults]` has a rule (the rule tables are
 * typed over the schema's keys, so a new key cannot go without one).
 * Widening or rerouting is dropped: `[chat].default_model` /
 * `default_provider`, `[defaults].model` and every `[[providers]]` entry;
 * allowlist entries (commands, globs, domains) the lower layers do not
 * already allow; a looser `fs_scope`; a higher `max_turns`,
 * `max_messages`, `command_timeout_ms`, `first_byte_timeout_ms`,
 * `idle_timeout_ms`, `max_response_bytes` or `compact_threshold`; a raised
 * or removed cost cap; a looser `on_exceed`; `strict_cost_cap = false` or
 * `auto_compact = false` over `true`; a higher `reasoning_effort` (any but
 * `off` when the lower layers set none); `prompt_caching` turned on or
 * lengthened (`"1h"`); a smaller `[defaults].max_tokens_estimate`.
 * Everything else applies. An allowlist key left empty by the filter is
 * dropped whole, so it no longer takes the allowlist over from the lower
 * layers.
 *
 * @module
 */
import { isCommandAllowed } from "../../tools/sandbox/command_allowlist.ts";
import type { ResolvedChat, ResolvedConfig } from "./resolve.ts";
import type { ChatTable, ProjectFile } from "./schema.ts";

/** What was dropped from an untrusted file. */
export interface Narrowed {
  data: ProjectFile;
  /** The dropped keys, e.g. `chat.max_turns` or `providers.evil`. */
  ignored: string[];
}

const SCOPE_RANK = { sandboxed: 0, project: 1, full: 2 } as const;
const EXCEED_RANK = { fail: 0, pause_for_approval: 1, warn: 2 } as const;
const EFFORT_RANK = { off: 0, low: 1, medium: 2, high: 3, max: 4 } as const;

function cacheRank(v: boolean | "5m" | "1h"): number {
  return v === false ? 0 : v === "1h" ? 2 : 1;
}

function costCapWidens(value: number, base: number): boolean {
  // 0 means no cap: removing or raising a cap widens.
  return base > 0 && (value === 0 || value > base);
}

type Chat = Required<ChatTable>;

/**
 * How one `[chat]` key of an untrusted file is judged: `reroute` (always
 * dropped), `allowlist` (entries the lower layers do not allow are
 * dropped), or whether a value widens the resolved setting below it. The
 * mapped type makes the table name every key of `[chat]`, so a new key
 * cannot go without a rule.
 */
type ChatRules = {
  readonly [K in keyof Chat]:
    | "reroute"
    | "allowlist"
    | ((value: Chat[K], base: ResolvedChat) => boolean);
};

/** The narrowing rule of every `[chat]` key. */
const CHAT_RULES: ChatRules = {
  default_model: "reroute",
  default_provider: "reroute",
  // An effort the lower layers did not set can only be shown to narrow
  // when it is off.
  reasoning_effort: (v, b) =>
    EFFORT_RANK[v] >
      (b.reasoningEffort === undefined
        ? 0
        : EFFORT_RANK[b.reasoningEffort.value]),
  fs_scope: (v, b) => SCOPE_RANK[v] > SCOPE_RANK[b.fsScope.value],
  allowed_commands: "allowlist",
  allowed_command_globs: "allowlist",
  allowed_domains: "allowlist",
  command_timeout_ms: (v, b) => v > b.commandTimeoutMs.value,
  max_turns: (v, b) => v > b.maxTurns.value,
  max_messages: (v, b) =>
    b.maxMessages !== undefined && v > b.maxMessages.value,
  // Compaction bounds the context each request sends: off or later widens.
  auto_compact: (v, b) => !v && b.autoCompact.value,
  compact_threshold: (v, b) => v > b.compactThreshold.value,
  max_cost_microcents: (v, b) => costCapWidens(v, b.maxCostMicrocents.value),
  on_exceed: (v, b) => EXCEED_RANK[v] > EXCEED_RANK[b.onExceed.value],
  strict_cost_cap: (v, b) => !v && b.strictCostCap.value,
  // Caching on, or a longer cache, costs more per cache write.
  prompt_caching: (v, b) => cacheRank(v) > cacheRank(b.promptCaching.value),
  first_byte_timeout_ms: (v, b) => v > b.firstByteTimeoutMs.value,
  idle_timeout_ms: (v, b) => v > b.idleTimeoutMs.value,
  max_response_bytes: (v, b) => v > b.maxResponseBytes.value,
};

/**
 * Every `[chat]` key, each of which an untrusted file may only narrow
 * (the README's list of widening keys names them all).
 */
export const WIDENING_CHAT_KEYS: readonly (keyof ChatTable)[] = Object.keys(
  CHAT_RULES,
) as (keyof ChatTable)[];

type Defaults = Required<NonNullable<ProjectFile["defaults"]>>;

/** Whether a `[defaults]` value widens (every key of the table has a rule). */
const DEFAULTS_RULES: {
  readonly [K in keyof Defaults]: (
    value: Defaults[K],
    base: ResolvedConfig["defaults"],
  ) => boolean;
} = {
  model: () => true,
  fs_scope: (v, b) => SCOPE_RANK[v] > SCOPE_RANK[b.fsScope.value],
  // A smaller output reservation lets each request grow closer to the window.
  max_tokens_estimate: (v, b) =>
    b.maxTokensEstimate !== undefined && v < b.maxTokensEstimate.value,
};

function widens<K extends keyof Chat>(
  key: K,
  value: Chat[K],
  base: ResolvedChat,
): boolean {
  const rule = CHAT_RULES[key] as ChatRules[K];
  return rule === "reroute" ||
    (typeof rule === "function" && rule(value, base));
}

function narrowChat(
  chat: ChatTable,
  base: ResolvedConfig,
  ignored: string[],
): ChatTable {
  const out: ChatTable = { ...chat };
  const b = base.chat;
  const allowlist = {
    allowedCommands: b.allowedCommands.value,
    allowedCommandGlobs: b.allowedCommandGlobs.value,
  };
  const allowed: Record<
    "allowed_commands" | "allowed_command_globs" | "allowed_domains",
    (entry: string) => boolean
  > = {
    allowed_commands: (c) => isCommandAllowed(c, allowlist),
    allowed_command_globs: (g) => b.allowedCommandGlobs.value.includes(g),
    allowed_domains: (d) => b.allowedDomains.value.includes(d),
  };
  for (const key of Object.keys(chat) as (keyof Chat)[]) {
    const value = chat[key];
    if (value === undefined) continue;
    if (CHAT_RULES[key] === "allowlist") {
      const k = key as keyof typeof allowed;
      const list = value as string[];
      const kept = list.filter(allowed[k]);
      const dropped = list.filter((e) => !allowed[k](e));
      if (dropped.length === 0) continue;
      if (kept.length === 0) delete out[k];
      else out[k] = kept;
      ignored.push(
        `chat.${key} (${dropped.map((e) => JSON.stringify(e)).join(", ")})`,
      );
      continue;
    }
    if (widens(key, value as Chat[typeof key], b)) {
      delete out[key];
      ignored.push(`chat.${key}`);
    }
  }
  return out;
}

/**
 * Drops the widening keys of an untrusted project file.
 *
 * @param data The file as written.
 * @param base The config resolved from the layers below it.
 * @returns The narrowed file and the dropped keys.
 */
export function narrowUntrusted(
  data: ProjectFile,
  base: ResolvedConfig,
): Narrowed {
  const ignored: string[] = [];
  const out: ProjectFile = { ...data };
  if (data.chat !== undefined) out.chat = narrowChat(data.chat, base, ignored);
  if (data.defaults !== undefined) {
    const d = { ...data.defaults };
    for (const key of Object.keys(d) as (keyof Defaults)[]) {
      const value = d[key];
      const rule = DEFAULTS_RULES[key] as (
        v: typeof value,
        b: ResolvedConfig["defaults"],
      ) => boolean;
      if (value !== undefined && rule(value, base.defaults)) {
        delete d[key];
        ignored.push(`defaults.${key}`);
      }
    }
    out.defaults = d;
  }
  if (data.providers !== undefined && data.providers.length > 0) {
    for (const p of data.providers) ignored.push(`providers.${p.id}`);
    delete out.providers;
  }
  return { data: out, ignored };
}
