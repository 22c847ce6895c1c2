/**
 * Zod-free exact check of a {@linkcode SessionMessage}: accepts exactly
 * what `sessionMessageSchema` (the contract, in `message.ts`) accepts.
 * The store checks every row it writes and reads with it, the resume hot
 * path; the schema still gives the detailed issues (`parseSessionMessage`).
 * tests/schema/message_check_test.ts holds the two equal over every part
 * kind, edge values, and single- and two-field mutations.
 *
 * @module
 */
import type { SessionContentPart, SessionMessage } from "./message.ts";
import {
  ENGINE_TOOL_CALL_ID,
  ISO_DATETIME,
  MEDIA_HANDLE,
  MIME,
  TOOL_NAME,
} from "./_patterns.ts";

/**
 * A decoded JSON-like object.
 */
type Json = Record<string, unknown>;

/**
 * A non-null, non-array object (zod's object check).
 *
 * @param v Any value.
 * @returns Whether `v` is such an object.
 */
function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Every key `for…in` visits is allowed (a strict object's rule).
 *
 * @param o The object.
 * @param allowed The known keys.
 * @returns Whether `o` has no other key.
 */
function onlyKeys(o: Json, allowed: readonly string[]): boolean {
  for (const k in o) if (!allowed.includes(k)) return false;
  return true;
}

/**
 * An absent key, or a present one whose value passes (`exactOptional`:
 * a present `undefined` fails unless `test` accepts it).
 *
 * @param o The object.
 * @param key The key.
 * @param test The value's check.
 * @returns Whether the key is absent or valid.
 */
function optional(
  o: Json,
  key: string,
  test: (v: unknown) => boolean,
): boolean {
  return !(key in o) || test(o[key]);
}

/**
 * A string.
 *
 * @param v Any value.
 * @returns Whether `v` is a string.
 */
function isString(v: unknown): v is string {
  return typeof v === "string";
}

/**
 * A non-empty string (`z.string().min(1)`).
 *
 * @param v Any value.
 * @returns Whether `v` is a non-empty string.
 */
function isNonEmpty(v: unknown): v is string {
  return typeof v === "string" && v.length > 0;
}

/**
 * A safe integer ≥ 0 (`z.number().int().min(0)`).
 *
 * @param v Any value.
 * @returns Whether `v` is a count.
 */
function isCount(v: unknown): v is number {
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
}

/**
 * A safe integer ≥ 1 (`z.number().int().positive()`).
 *
 * @param v Any value.
 * @returns Whether `v` is a positive integer.
 */
function isPositiveInt(v: unknown): v is number {
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 1;
}

const OUTCOMES: readonly unknown[] = ["ok", "error", "denied", "cancelled"];
const ROLES: readonly unknown[] = ["system", "user", "assistant", "tool"];
/**
 * The keys a {@linkcode SessionMessage} may have.
 */
export const SESSION_MESSAGE_KEYS: readonly string[] = [
  "id",
  "sessionId",
  "sequenceNumber",
  "role",
  "content",
  "modelId",
  "compaction",
  "timestamp",
];
const MEDIA_KEYS = [
  "type",
  "mimeType",
  "source",
  "name",
  "transcript",
  "byteLength",
  "durationMs",
];
const TOOL_MEDIA_KEYS = [
  "type",
  "mimeType",
  "source",
  "byteLength",
  "durationMs",
];

function isEngineId(v: unknown): boolean {
  return typeof v === "string" && v.length <= 46 && ENGINE_TOOL_CALL_ID.test(v);
}

function isHandle(v: unknown): boolean {
  return isObject(v) && onlyKeys(v, ["kind", "ref"]) &&
    v["kind"] === "handle" && typeof v["ref"] === "string" &&
    MEDIA_HANDLE.test(v["ref"]);
}

function isMime(v: unknown): v is string {
  return typeof v === "string" && v.length <= 255 && MIME.test(v);
}

/** The fields both media shapes share, with the audio/video-only rule. */
function isMediaBody(o: Json): boolean {
  const mime = o["mimeType"];
  return isMime(mime) && isHandle(o["source"]) &&
    optional(o, "byteLength", isCount) &&
    optional(o, "durationMs", isPositiveInt) &&
    (!("durationMs" in o) || o["durationMs"] === undefined ||
      /^(audio|video)\//.test(mime));
}

/**
 * Exactly `sessionContentPartSchema`'s acceptance, without zod.
 *
 * @param p Any value.
 * @returns Whether `p` is a valid {@linkcode SessionContentPart}.
 *
 * @example
 * ```ts
 * import { isSessionContentPart } from "./message_check.ts";
 * import assert from "node:assert/strict";
 * assert.equal(isSessionContentPart({ type: "tool_call", id: "session-tool:1:0", name: "read_file", argsBytes: 2 }), true);
 * assert.equal(isSessionContentPart({ type: "tool_call", id: "call_1", name: "read_file", argsBytes: 2 }), false);
 * ```
 */
export function isSessionContentPart(p: unknown): p is SessionContentPart {
  if (!isObject(p)) return false;
  switch (p["type"]) {
    case "text":
      return onlyKeys(p, ["type", "text"]) && isString(p["text"]);
    case "reasoning":
      return onlyKeys(p, ["type", "text", "redacted"]) && isString(p["text"]) &&
        optional(p, "redacted", (r) => typeof r === "boolean");
    case "media":
      return onlyKeys(p, MEDIA_KEYS) && isMediaBody(p) &&
        optional(
          p,
          "name",
          (n) => isString(n) && (n as string).length <= 255,
        ) &&
        optional(p, "transcript", isString);
    case "tool_call":
      return onlyKeys(p, ["type", "id", "name", "argsBytes"]) &&
        isEngineId(p["id"]) && isString(p["name"]) &&
        TOOL_NAME.test(p["name"] as string) && isCount(p["argsBytes"]);
    case "tool_result":
      return onlyKeys(p, [
        "type",
        "toolCallId",
        "resultBytes",
        "outcome",
        "media",
      ]) &&
        isEngineId(p["toolCallId"]) && isCount(p["resultBytes"]) &&
        OUTCOMES.includes(p["outcome"]) &&
        optional(
          p,
          "media",
          (m) =>
            isObject(m) && onlyKeys(m, TOOL_MEDIA_KEYS) &&
            m["type"] === "media" && isMediaBody(m),
        );
    default:
      return false;
  }
}

function isCompaction(v: unknown): boolean {
  if (!isObject(v) || !onlyKeys(v, ["droppedThroughSequence"])) return false;
  const d = v["droppedThroughSequence"];
  return typeof d === "number" && Number.isSafeInteger(d) && d >= -1;
}

/**
 * Exactly `sessionMessageSchema`'s acceptance, without zod.
 *
 * @param m Any value.
 * @returns Whether `m` is a valid {@linkcode SessionMessage}.
 *
 * @example
 * ```ts
 * import { isSessionMessage } from "./message_check.ts";
 * import assert from "node:assert/strict";
 * const m = {
 *   id: "m1", sessionId: "s", sequenceNumber: 0, role: "user",
 *   content: [{ type: "text", text: "hi" }], timestamp: "2026-01-01T00:00:00.000Z",
 * };
 * assert.equal(isSessionMessage(m), true);
 * assert.equal(isSessionMessage({ ...m, content: [{ type: "text", text: "hi", args: {} }] }), false);
 * ```
 */
export function isSessionMessage(m: unknown): m is SessionMessage {
  if (!isObject(m) || !onlyKeys(m, SESSION_MESSAGE_KEYS)) return false;
  const content = m["content"];
  if (
    !isNonEmpty(m["id"]) || !isNonEmpty(m["sessionId"]) ||
    !isCount(m["sequenceNumber"]) || !ROLES.includes(m["role"]) ||
    !Array.isArray(content) || !optional(m, "modelId", isNonEmpty) ||
    !optional(m, "compaction", isCompaction)
  ) {
    return false;
  }
  const stamp = m["timestamp"];
  if (typeof stamp !== "string" || !ISO_DATETIME.test(stamp)) return false;
  if ("compaction" in m && m["compaction"] !== undefined) {
    if (m["role"] !== "system") return false;
  }
  for (let i = 0; i < content.length; i++) {
    if (!isSessionContentPart(content[i])) return false;
  }
  return true;
}
