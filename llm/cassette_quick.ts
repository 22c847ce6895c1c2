/**
 * A zod-free cassette reader for start-up-sensitive callers (the CLI's
 * one-shot `agent run`): the same document walk as `parseCassette`, with
 * the exact zod-free chunk and `expect` checks. It accepts exactly the
 * cassettes `parseCassette` accepts and returns `undefined` for every
 * other input, so the caller then runs `parseCassette` for the
 * file- and path-attributed errors (tests/llm/cassette_quick_test.ts
 * holds the two equal).
 *
 * @module
 */
import type { Cassette, CassetteExpect } from "./cassette.ts";
import { type CassetteChecks, parseCassetteWith } from "./_cassette_doc.ts";
import { isStreamChunk } from "./chunk_check.ts";
import type { ValidationIssue } from "../schema/issues.ts";
import {
  everyItem,
  isNonEmpty,
  isObject,
  isString,
  optional,
} from "../schema/_checks.ts";

const EXPECT_KEYS = [
  "model",
  "lastUserIncludes",
  "messagesInclude",
  "tools",
  "toolResultFor",
  "maxTokens",
];

/**
 * Exactly the strict v1.1 `expect` schema's acceptance, without zod.
 *
 * @param v Any value.
 * @returns Whether `v` is a valid {@linkcode CassetteExpect}.
 *
 * @example
 * ```ts
 * import { isCassetteExpect } from "./cassette_quick.ts";
 * import assert from "node:assert/strict";
 * assert.equal(isCassetteExpect({ messagesInclude: ["hello"] }), true);
 * assert.equal(isCassetteExpect({ messagesInclude: [] }), false);
 * ```
 */
export function isCassetteExpect(v: unknown): v is CassetteExpect {
  if (!isObject(v)) return false;
  for (const k of Object.keys(v)) if (!EXPECT_KEYS.includes(k)) return false;
  const max = v["maxTokens"];
  return optional(v, "model", isString) &&
    optional(v, "lastUserIncludes", isString) &&
    optional(
      v,
      "messagesInclude",
      (m) => everyItem(m, isNonEmpty) && (m as unknown[]).length > 0,
    ) &&
    optional(v, "tools", (t) => everyItem(t, isString)) &&
    optional(v, "toolResultFor", isNonEmpty) &&
    (!("maxTokens" in v) ||
      (typeof max === "number" && Number.isSafeInteger(max) && max > 0));
}

// At least one issue, so the walk reports the document invalid.
function refused(): { ok: false; issues: ValidationIssue[] } {
  return { ok: false, issues: [{ path: "", message: "invalid" }] };
}

const QUICK: CassetteChecks = {
  chunk: (raw) => isStreamChunk(raw) ? { ok: true, value: raw } : refused(),
  expect: (raw) => isCassetteExpect(raw) ? { ok: true, value: raw } : refused(),
};

/**
 * Reads a valid cassette without loading zod; `undefined` when the text
 * is not a valid cassette (then call `parseCassette` for the errors).
 *
 * @param text The file's contents.
 * @param file The file name (kept on the cassette).
 * @returns The cassette, or `undefined`.
 *
 * @example Fall back for the errors
 * ```ts
 * import { quickParseCassette } from "./cassette_quick.ts";
 * import { parseCassette } from "@relavium/session/llm";
 * import assert from "node:assert/strict";
 * const text = '{"schema_version":"1.0","provider":"openai","calls":[[{"type":"nope"}]]}';
 * assert.equal(quickParseCassette(text, "bad.json"), undefined);
 * const full = parseCassette(text, "bad.json");
 * assert.equal(full.ok, false);
 * ```
 */
export function quickParseCassette(
  text: string,
  file: string,
): Cassette | undefined {
  const r = parseCassetteWith(text, file, QUICK);
  return r.ok ? r.value : undefined;
}
