/**
 * What an untrusted project file may still set: only what narrows the
 * settings below it (the global file, or the global file and the
 * workspace file under `project.toml`). Pure.
 *
 * Widening or rerouting is dropped: `[chat].default_model` /
 * `default_provider`, `[defaults].model` and every `[[providers]]` entry;
 * allowlist entries (commands, globs, domains) the lower layers do not
 * already allow; a looser `fs_scope`; a higher `max_turns`,
 * `max_messages` or `command_timeout_ms`; a raised or removed cost cap; a
 * looser `on_exceed`; `strict_cost_cap = false` over `true`. Everything
 * else applies. An allowlist key left empty by the filter is dropped
 * whole, so it no longer takes the allowlist over from the lower layers.
 *
 * @module
 */
import { isCommandAllowed } from "../../tools/sandbox/command_allowlist.ts";
import type { ResolvedConfig } from "./resolve.ts";
import type { ChatTable, ProjectFile } from "./schema.ts";

/** What was dropped from an untrusted file. */
export interface Narrowed {
  data: ProjectFile;
  /** The dropped keys, e.g. `chat.max_turns` or `providers.evil`. */
  ignored: string[];
}

const SCOPE_RANK = { sandboxed: 0, project: 1, full: 2 } as const;
const EXCEED_RANK = { fail: 0, pause_for_approval: 1, warn: 2 } as const;

function capRaised(value: number, base: number | undefined): boolean {
  return base !== undefined && value > base;
}

function costCapWidens(value: number, base: number): boolean {
  // 0 means no cap: removing or raising a cap widens.
  return base > 0 && (value === 0 || value > base);
}

function narrowChat(
  chat: ChatTable,
  base: ResolvedConfig,
  ignored: string[],
): ChatTable {
  const out: ChatTable = { ...chat };
  const b = base.chat;
  const drop = (key: keyof ChatTable, detail = ""): void => {
    delete out[key];
    ignored.push(`chat.${key}${detail}`);
  };
  if (chat.default_model !== undefined) drop("default_model");
  if (chat.default_provider !== undefined) drop("default_provider");
  if (
    chat.fs_scope !== undefined &&
    SCOPE_RANK[chat.fs_scope] > SCOPE_RANK[b.fsScope.value]
  ) drop("fs_scope");
  const allowlist = {
    allowedCommands: b.allowedCommands.value,
    allowedCommandGlobs: b.allowedCommandGlobs.value,
  };
  const filter = (
    key: "allowed_commands" | "allowed_command_globs" | "allowed_domains",
    keep: (entry: string) => boolean,
  ): void => {
    const list = chat[key];
    if (list === undefined) return;
    const kept = list.filter(keep);
    const dropped = list.filter((e) => !keep(e));
    if (dropped.length === 0) return;
    if (kept.length === 0 && list.length > 0) delete out[key];
    else out[key] = kept;
    ignored.push(
      `chat.${key} (${dropped.map((e) => JSON.stringify(e)).join(", ")})`,
    );
  };
  filter("allowed_commands", (c) => isCommandAllowed(c, allowlist));
  filter(
    "allowed_command_globs",
    (g) => b.allowedCommandGlobs.value.includes(g),
  );
  filter("allowed_domains", (d) => b.allowedDomains.value.includes(d));
  const caps: Array<
    ["command_timeout_ms" | "max_turns" | "max_messages", number | undefined]
  > = [
    ["command_timeout_ms", b.commandTimeoutMs.value],
    ["max_turns", b.maxTurns.value],
    ["max_messages", b.maxMessages?.value],
  ];
  for (const [key, limit] of caps) {
    const value = chat[key];
    if (value !== undefined && capRaised(value, limit)) drop(key);
  }
  if (
    chat.max_cost_microcents !== undefined &&
    costCapWidens(chat.max_cost_microcents, b.maxCostMicrocents.value)
  ) drop("max_cost_microcents");
  if (
    chat.on_exceed !== undefined &&
    EXCEED_RANK[chat.on_exceed] > EXCEED_RANK[b.onExceed.value]
  ) drop("on_exceed");
  if (chat.strict_cost_cap === false && b.strictCostCap.value) {
    drop("strict_cost_cap");
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
    if (d.model !== undefined) {
      delete d.model;
      ignored.push("defaults.model");
    }
    if (
      d.fs_scope !== undefined &&
      SCOPE_RANK[d.fs_scope] > SCOPE_RANK[base.defaults.fsScope.value]
    ) {
      delete d.fs_scope;
      ignored.push("defaults.fs_scope");
    }
    out.defaults = d;
  }
  if (data.providers !== undefined && data.providers.length > 0) {
    for (const p of data.providers) ignored.push(`providers.${p.id}`);
    delete out.providers;
  }
  return { data: out, ignored };
}
