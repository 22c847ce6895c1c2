/**
 * A conservative fast path for re-validating stored rows on read. It
 * accepts only the common, plainly valid shapes (text, reasoning,
 * tool_call, and media-free tool_result parts); anything else answers
 * `false` and the caller falls back to the authoritative zod schema
 * (`sessionMessageSchema`). It never accepts what that schema rejects
 * (`tests/store/fast_check_test.ts` checks this differentially).
 *
 * Resuming a 10,000-row session must stay under 50 ms; zod alone costs
 * more than that on this machine.
 *
 * @module
 */
import {
  ENGINE_TOOL_CALL_ID,
  SESSION_MESSAGE_KEYS,
  TOOL_NAME,
} from "../schema/message_check.ts";

const ROLES: ReadonlySet<unknown> = new Set([
  "system",
  "user",
  "assistant",
  "tool",
]);
const OUTCOMES: ReadonlySet<unknown> = new Set([
  "ok",
  "error",
  "denied",
  "cancelled",
]);
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MESSAGE_KEYS: ReadonlySet<string> = new Set(SESSION_MESSAGE_KEYS);

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isCount(v: unknown): boolean {
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
}

function isEngineId(v: unknown): boolean {
  return typeof v === "string" && v.length <= 46 && ENGINE_TOOL_CALL_ID.test(v);
}

/**
 * Whether one content part is plainly valid. `true` ⇒
 * `sessionContentPartSchema` accepts it; `false` ⇒ unknown, ask the schema.
 *
 * @param p The candidate part.
 * @returns `true` only for the plainly valid common part shapes.
 *
 * @example A tool call
 * ```ts
 * import { isPlainlyValidPart } from "./fast_check.ts";
 * import assert from "node:assert/strict";
 * const id = "session-tool:1:0";
 * assert.equal(isPlainlyValidPart({ type: "tool_call", id, name: "read_file", argsBytes: 2 }), true);
 * assert.equal(isPlainlyValidPart({ type: "tool_call", id, name: "read_file" }), false);
 * ```
 */
export function isPlainlyValidPart(p: unknown): boolean {
  if (!isRecord(p)) return false;
  const n = Object.keys(p).length;
  switch (p["type"]) {
    case "text":
      return n === 2 && typeof p["text"] === "string";
    case "reasoning":
      return typeof p["text"] === "string" && (
        n === 2 || (n === 3 && typeof p["redacted"] === "boolean")
      );
    case "tool_call":
      return n === 4 && isEngineId(p["id"]) && typeof p["name"] === "string" &&
        TOOL_NAME.test(p["name"]) && isCount(p["argsBytes"]);
    case "tool_result":
      return n === 4 && isEngineId(p["toolCallId"]) &&
        isCount(p["resultBytes"]) && OUTCOMES.has(p["outcome"]);
    default:
      return false;
  }
}

/**
 * Per-read memo: rows of one turn share a timestamp, so the last checked
 * value (and its epoch) is remembered.
 *
 * @example A fresh memo
 * ```ts
 * import type { DecodeMemo } from "./fast_check.ts";
 * const memo: DecodeMemo = { epoch: Number.NaN, iso: "" };
 * ```
 */
export interface DecodeMemo {
  /** The last epoch-ms value converted. */
  epoch: number;
  /** Its ISO-8601 form, known valid. */
  iso: string;
}

/**
 * Converts a stored epoch-ms value to its ISO-8601 form, remembering it in
 * `memo` only when the form is one the fast path accepts (so the check that
 * follows need not parse it again).
 *
 * @param epoch A safe-integer epoch-ms value that is a valid date.
 * @param memo The per-read memo.
 * @returns The ISO-8601 form.
 *
 * @example Remembered
 * ```ts
 * import { epochToIsoMemo, type DecodeMemo } from "./fast_check.ts";
 * import assert from "node:assert/strict";
 * const memo: DecodeMemo = { epoch: Number.NaN, iso: "" };
 * assert.equal(epochToIsoMemo(0, memo), "1970-01-01T00:00:00.000Z");
 * assert.equal(memo.epoch, 0);
 * ```
 */
export function epochToIsoMemo(epoch: number, memo: DecodeMemo): string {
  const iso = new Date(epoch).toISOString();
  if (ISO_UTC.test(iso)) {
    memo.epoch = epoch;
    memo.iso = iso;
  }
  return iso;
}

function plainTimestamp(v: unknown, memo: DecodeMemo): boolean {
  if (memo.iso !== "" && v === memo.iso) return true;
  if (typeof v !== "string" || !ISO_UTC.test(v)) return false;
  const d = new Date(v);
  if (Number.isNaN(d.getTime()) || d.toISOString() !== v) return false;
  memo.epoch = d.getTime();
  memo.iso = v;
  return true;
}

/**
 * Whether a candidate message is plainly valid. `true` ⇒ the strict
 * message schema accepts it; `false` ⇒ unknown, ask the schema.
 *
 * @param m The candidate message.
 * @param memo A per-read memo (optional).
 * @returns `true` only for plainly valid common shapes.
 *
 * @example A media part is left to the schema
 * ```ts
 * import { isPlainlyValidMessage } from "./fast_check.ts";
 * import assert from "node:assert/strict";
 * const base = { id: "m", sessionId: "s", sequenceNumber: 0, role: "user", timestamp: "2026-01-01T00:00:00.000Z" };
 * assert.equal(isPlainlyValidMessage({ ...base, content: [{ type: "text", text: "hi" }] }), true);
 * assert.equal(isPlainlyValidMessage({ ...base, content: [{ type: "media" }] }), false);
 * ```
 */
export function isPlainlyValidMessage(
  m: unknown,
  memo: DecodeMemo = { epoch: Number.NaN, iso: "" },
): boolean {
  if (!isRecord(m)) return false;
  const keys = Object.keys(m);
  for (let i = 0; i < keys.length; i++) {
    if (!MESSAGE_KEYS.has(keys[i] as string)) return false;
  }
  return isPlainlyValidBuilt(m, memo);
}

/**
 * {@linkcode isPlainlyValidMessage} for a candidate whose own keys are
 * known to be among the message keys (`id`, `sessionId`, `sequenceNumber`,
 * `role`, `content`, `modelId`, `compaction`, `timestamp`): the decoder
 * builds its candidates from a literal, so it skips the key scan. Every
 * value is still checked.
 *
 * @param m A candidate built with message keys only.
 * @param memo The per-read memo.
 * @returns `true` only for plainly valid common shapes.
 *
 * @example A decoded row
 * ```ts
 * import { isPlainlyValidBuilt } from "./fast_check.ts";
 * import assert from "node:assert/strict";
 * const m = { id: "m", sessionId: "s", sequenceNumber: 0, role: "user", content: [], timestamp: "2026-01-01T00:00:00.000Z" };
 * assert.equal(isPlainlyValidBuilt(m, { epoch: Number.NaN, iso: "" }), true);
 * assert.equal(isPlainlyValidBuilt({ ...m, sequenceNumber: -1 }, { epoch: Number.NaN, iso: "" }), false);
 * ```
 */
export function isPlainlyValidBuilt(
  m: Record<string, unknown>,
  memo: DecodeMemo,
): boolean {
  const id = m["id"];
  const sessionId = m["sessionId"];
  const role = m["role"];
  const content = m["content"];
  if (typeof id !== "string" || id === "") return false;
  if (typeof sessionId !== "string" || sessionId === "") return false;
  if (!isCount(m["sequenceNumber"]) || !ROLES.has(role)) return false;
  if (!Array.isArray(content)) return false;
  if ("modelId" in m) {
    const modelId = m["modelId"];
    if (typeof modelId !== "string" || modelId === "") return false;
  }
  if ("compaction" in m) {
    const compaction = m["compaction"];
    if (role !== "system" || !isRecord(compaction)) return false;
    const keys = Object.keys(compaction);
    const d = compaction["droppedThroughSequence"];
    if (keys.length !== 1 || typeof d !== "number") return false;
    if (!Number.isSafeInteger(d) || d < -1) return false;
  }
  if (!plainTimestamp(m["timestamp"], memo)) return false;
  for (let i = 0; i < content.length; i++) {
    if (!isPlainlyValidPart(content[i])) return false;
  }
  return true;
}
