/**
 * A zod-free reader for the common shape of an agent file, for
 * start-up-sensitive callers (the CLI reads one agent per run). It
 * accepts only what `parseAgent` accepts, returning the same value (keys
 * in schema order), and returns `undefined` for anything else — an
 * invalid agent, or a valid one that uses `retry`, `mcp_servers`,
 * `input_schema` or `output_schema` — so the caller then runs
 * `parseAgent`, the contract, for the result or the errors.
 * tests/schema/agent_quick_test.ts holds the two equal over valid agents
 * and single-field mutations.
 *
 * @module
 */
import type { Agent, AgentMemory, FallbackEntry } from "./agent.ts";
import {
  everyItem,
  isNonEmpty,
  isObject,
  isPositiveInt,
  type Json,
} from "./_checks.ts";

/**
 * Kebab id: `^[a-z0-9]+(-[a-z0-9]+)*$`.
 *
 * @example
 * ```ts
 * import { KEBAB_ID } from "./agent_quick.ts";
 * import assert from "node:assert/strict";
 * assert.equal(KEBAB_ID.test("code-helper"), true);
 * assert.equal(KEBAB_ID.test("Code_Helper"), false);
 * ```
 */
export const KEBAB_ID: RegExp = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/**
 * A `{{secrets.*}}` reference, refused in `system_prompt`.
 *
 * @example
 * ```ts
 * import { SECRET_REF } from "./agent_quick.ts";
 * import assert from "node:assert/strict";
 * assert.equal(SECRET_REF.test("key: {{ secrets.API }}"), true);
 * ```
 */
export const SECRET_REF: RegExp = /\{\{\s*secrets\./;

/**
 * Most fallback entries.
 *
 * @example
 * ```ts
 * import { MAX_FALLBACK } from "./agent_quick.ts";
 * import assert from "node:assert/strict";
 * assert.equal(MAX_FALLBACK, 5);
 * ```
 */
export const MAX_FALLBACK = 5;
/**
 * Most attempts of one fallback entry.
 *
 * @example
 * ```ts
 * import { MAX_ATTEMPTS } from "./agent_quick.ts";
 * import assert from "node:assert/strict";
 * assert.equal(MAX_ATTEMPTS, 10);
 * ```
 */
export const MAX_ATTEMPTS = 10;

const EFFORTS: readonly unknown[] = ["off", "low", "medium", "high", "max"];

/**
 * The keys this reader handles, in the schema's order; a document with
 * any other key goes to `parseAgent`.
 *
 * @example
 * ```ts
 * import { QUICK_AGENT_KEYS } from "./agent_quick.ts";
 * import assert from "node:assert/strict";
 * assert.equal(QUICK_AGENT_KEYS.includes("retry"), false);
 * ```
 */
export const QUICK_AGENT_KEYS: readonly string[] = [
  "id",
  "name",
  "description",
  "model",
  "provider",
  "system_prompt",
  "temperature",
  "max_tokens",
  "reasoning_effort",
  "tools",
  "memory",
  "fallback_chain",
];

function isKebab(v: unknown): v is string {
  return typeof v === "string" && KEBAB_ID.test(v);
}

function memory(v: unknown): AgentMemory | undefined {
  if (!isObject(v)) return undefined;
  const keys = Object.keys(v);
  if (v["type"] === "none" || v["type"] === "summary") {
    return keys.length === 1 ? { type: v["type"] } : undefined;
  }
  if (v["type"] !== "window" || keys.length !== 2) return undefined;
  const size = v["window_size"];
  return isPositiveInt(size)
    ? { type: "window", window_size: size }
    : undefined;
}

function fallbackEntry(v: unknown): FallbackEntry | undefined {
  if (!isObject(v) || Object.keys(v).length !== 3) return undefined;
  const { model, provider, max_attempts } = v;
  if (!isNonEmpty(model) || !isKebab(provider)) return undefined;
  if (!isPositiveInt(max_attempts) || max_attempts > MAX_ATTEMPTS) {
    return undefined;
  }
  return { model, provider, max_attempts };
}

function fallbackChain(
  v: unknown,
  primary: string,
): FallbackEntry[] | undefined {
  if (!Array.isArray(v) || v.length > MAX_FALLBACK) return undefined;
  const seen = new Set([primary]);
  const out: FallbackEntry[] = [];
  for (const raw of v) {
    const entry = fallbackEntry(raw);
    if (entry === undefined) return undefined;
    const key = `${entry.provider}\u0000${entry.model}`;
    if (seen.has(key)) return undefined;
    seen.add(key);
    out.push(entry);
  }
  return out;
}

/** Checks one optional key; `false` when present and invalid. */
function setOptional(
  out: Json,
  doc: Json,
  key: string,
  read: (v: unknown) => unknown,
): boolean {
  if (!(key in doc)) return true;
  const value = read(doc[key]);
  if (value === undefined) return false;
  out[key] = value;
  return true;
}

const same = (test: (v: unknown) => boolean) => (v: unknown): unknown =>
  test(v) ? v : undefined;

/**
 * Reads a valid agent of the common shape without loading zod.
 *
 * @param value The decoded document (e.g. from YAML).
 * @returns The agent exactly as `parseAgent` would return it, or
 *   `undefined` (then call `parseAgent`).
 *
 * @example Fall back for the errors
 * ```ts
 * import { quickParseAgent } from "./agent_quick.ts";
 * import { parseAgent } from "@relavium/session/schema";
 * import assert from "node:assert/strict";
 * const good = { id: "a", model: "m", provider: "openai", system_prompt: "s" };
 * assert.deepEqual(quickParseAgent(good), good);
 * const bad = { ...good, colour: 1 };
 * assert.equal(quickParseAgent(bad), undefined);
 * assert.equal(parseAgent(bad, "a.agent.yaml").ok, false);
 * ```
 */
export function quickParseAgent(value: unknown): Agent | undefined {
  if (!isObject(value)) return undefined;
  for (const key of Object.keys(value)) {
    if (!QUICK_AGENT_KEYS.includes(key)) return undefined;
  }
  const { id, model, provider, system_prompt: prompt } = value;
  if (!isKebab(id) || !isNonEmpty(model) || !isKebab(provider)) {
    return undefined;
  }
  if (!isNonEmpty(prompt) || SECRET_REF.test(prompt)) return undefined;
  const out: Json = { id };
  const ok =
    setOptional(out, value, "name", same((v) => typeof v === "string")) &&
    setOptional(
      out,
      value,
      "description",
      same((v) => typeof v === "string"),
    );
  if (!ok) return undefined;
  out["model"] = model;
  out["provider"] = provider;
  out["system_prompt"] = prompt;
  const rest = setOptional(
    out,
    value,
    "temperature",
    same((v) => typeof v === "number" && v >= 0 && v <= 2),
  ) &&
    setOptional(out, value, "max_tokens", same(isPositiveInt)) &&
    setOptional(
      out,
      value,
      "reasoning_effort",
      same((v) => EFFORTS.includes(v)),
    ) &&
    setOptional(
      out,
      value,
      "tools",
      (v) => everyItem(v, isNonEmpty) ? [...v] : undefined,
    ) &&
    setOptional(out, value, "memory", memory) &&
    setOptional(
      out,
      value,
      "fallback_chain",
      (v) => fallbackChain(v, `${provider}\u0000${model}`),
    );
  return rest ? out as unknown as Agent : undefined;
}
