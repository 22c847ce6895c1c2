/**
 * A zod-free reader for the common config files: it accepts only what the
 * strict config schemas (`schema.ts`, the contract) accept and returns the
 * same data, keys in schema order; anything else — an invalid file, or a
 * valid one with `[[providers]]` — is `undefined`, and the caller runs the
 * schema for the data or the line-attributed errors. A machine whose
 * config holds `[preferences]`, `[chat]`, `[defaults]` or `[variables]`
 * then starts without loading zod. tests/cli/config_quick_test.ts holds
 * the reader equal to the schemas over single-field mutations.
 *
 * @module
 */
import { KEBAB_ID } from "../../schema/kebab.ts";
import { isPlainObject } from "../../schema/_checks.ts";
import {
  everyItem,
  isBool,
  isNonEmpty,
  isObject,
  isPositiveInt,
  type Json,
} from "../../schema/_checks.ts";
import type { GlobalFile, ProjectFile } from "./schema.ts";

type Check = (v: unknown) => boolean;
type Shape = ReadonlyArray<readonly [string, Check]>;

/** Mirrors `schema.ts` (the process-timeout ceiling of tools.md §3). */
const PROCESS_TIMEOUT_CEILING_MS = 120_000;

const isKebab: Check = (v) => typeof v === "string" && KEBAB_ID.test(v);
const oneOf = (...values: string[]): Check => (v) =>
  typeof v === "string" && values.includes(v);
const anything: Check = () => true;
const isStrings: Check = (v) => everyItem(v, isNonEmpty);

const effort = oneOf("off", "low", "medium", "high", "max");
const fsScope = oneOf("sandboxed", "project", "full");

const CHAT: Shape = [
  ["default_model", isNonEmpty],
  ["default_provider", isKebab],
  ["reasoning_effort", effort],
  ["fs_scope", fsScope],
  ["allowed_commands", isStrings],
  ["allowed_command_globs", isStrings],
  ["allowed_domains", isStrings],
  [
    "command_timeout_ms",
    (v) => isPositiveInt(v) && (v as number) <= PROCESS_TIMEOUT_CEILING_MS,
  ],
  ["max_turns", isPositiveInt],
  ["max_messages", isPositiveInt],
  ["auto_compact", isBool],
  ["compact_threshold", (v) => typeof v === "number" && v > 0 && v <= 1],
  [
    "max_cost_microcents",
    (v) => typeof v === "number" && Number.isSafeInteger(v) && v >= 0,
  ],
  ["on_exceed", oneOf("fail", "pause_for_approval", "warn")],
  ["strict_cost_cap", isBool],
];

const PREFERENCES: Shape = [
  ["default_model", isNonEmpty],
  ["default_provider", isKebab],
  ["reasoning_effort", effort],
  ["theme", anything],
  ["alt_screen", anything],
  ["mouse", anything],
  ["show_banner", anything],
  ["copy_on_select", anything],
];

const DEFAULTS: Shape = [
  ["model", isNonEmpty],
  ["fs_scope", fsScope],
  ["max_tokens_estimate", isPositiveInt],
];

/** A strict table: known keys only, each valid; output in shape order. */
function table(v: unknown, shape: Shape): Json | undefined {
  if (!isObject(v)) return undefined;
  for (const key in v) {
    if (!shape.some(([k]) => k === key)) return undefined;
  }
  const out: Json = {};
  for (const [key, check] of shape) {
    if (!(key in v)) continue;
    if (!check(v[key])) return undefined;
    out[key] = v[key];
  }
  return out;
}

function variables(v: unknown): Json | undefined {
  if (!isPlainObject(v)) return undefined;
  const out: Json = {};
  for (const key of Object.keys(v)) {
    if (key === "__proto__") continue;
    if (typeof v[key] !== "string") return undefined;
    out[key] = v[key];
  }
  return out;
}

type Reader = (v: unknown) => unknown;

const GLOBAL: ReadonlyArray<readonly [string, Reader]> = [
  ["preferences", (v) => table(v, PREFERENCES)],
  ["update_channel", (v) => oneOf("stable", "beta")(v) ? v : undefined],
  ["catalog", (v) => table(v, [["auto_refresh", isBool]])],
  ["chat", (v) => table(v, CHAT)],
];

const PROJECT: ReadonlyArray<readonly [string, Reader]> = [
  ["defaults", (v) => table(v, DEFAULTS)],
  ["variables", variables],
  ["chat", (v) => table(v, CHAT)],
];

/**
 * Reads a decoded config file of the common shape without loading zod.
 *
 * @param kind `global` for `config.toml`; else a project or workspace file.
 * @param value The decoded TOML document.
 * @returns The file's data exactly as the schema returns it, or
 *   `undefined` (then validate with the schema).
 *
 * @example
 * ```ts
 * import { quickConfigData } from "./quick.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(quickConfigData("project", { chat: { max_turns: 5 } }), { chat: { max_turns: 5 } });
 * assert.equal(quickConfigData("project", { chat: { max_turns: 0 } }), undefined);
 * assert.equal(quickConfigData("global", { defaults: {} }), undefined);
 * ```
 */
export function quickConfigData(
  kind: "global" | "workspace" | "project",
  value: unknown,
): GlobalFile | ProjectFile | undefined {
  const readers = kind === "global" ? GLOBAL : PROJECT;
  if (!isObject(value)) return undefined;
  for (const key in value) {
    if (!readers.some(([k]) => k === key)) return undefined;
  }
  const out: Json = {};
  for (const [key, read] of readers) {
    if (!(key in value)) continue;
    const data = read(value[key]);
    if (data === undefined) return undefined;
    out[key] = data;
  }
  return out;
}
