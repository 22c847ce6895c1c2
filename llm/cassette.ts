/**
 * Fixture cassettes v1.0 and v1.1 (cli.md §7, DECISIONS.md 16): strict
 * parsing with file- and path-attributed errors.
 *
 * @module
 */
import { z } from "zod";
import { type StreamChunk, streamChunkSchema } from "./chunk.ts";
import { type CassetteChecks, parseCassetteWith } from "./_cassette_doc.ts";
import { toIssues, type ValidationIssue } from "../schema/issues.ts";
import type { Result } from "../schema/result.ts";

/**
 * Per-call request expectations (v1.1). Every present key must match.
 *
 * @example Value
 * ```ts
 * import type { CassetteExpect } from "@relavium/session/llm";
 * const e: CassetteExpect = { model: "gpt-5.4-mini", tools: ["read_file"], toolResultFor: "call-1" };
 * ```
 */
export interface CassetteExpect {
  /** The request's model id. */
  model?: string;
  /** A substring of the request's last user message text. */
  lastUserIncludes?: string;
  /**
   * Substrings that must each appear in the text of some request message
   * (any role): proves earlier turns or a summary reached the request.
   * A module addition to cli.md §7, v1.1 only.
   */
  messagesInclude?: string[];
  /** Exactly this set of advertised tool names. */
  tools?: string[];
  /** A cassette tool-call id whose `tool_result` the request must carry. */
  toolResultFor?: string;
  /** The request's `maxTokens`. */
  maxTokens?: number;
}

/**
 * One recorded call: its chunks (a list without a terminal replays as a
 * truncated stream) and optional expectations.
 *
 * @example Value
 * ```ts
 * import type { CassetteCall } from "@relavium/session/llm";
 * const c: CassetteCall = { chunks: [{ type: "text_delta", text: "hi" }] };
 * ```
 */
export interface CassetteCall {
  /** Chunks replayed in order. */
  chunks: StreamChunk[];
  /** Checked against the request before replaying. */
  expect?: CassetteExpect;
}

/**
 * Where calls are replayed from: one queue that replaces every provider of
 * the plan, or one queue per provider id (v1.1 `providers`).
 *
 * @example Value
 * ```ts
 * import type { CassetteQueues } from "@relavium/session/llm";
 * const q: CassetteQueues = { kind: "single", provider: "openai", calls: [] };
 * ```
 */
export type CassetteQueues =
  | { kind: "single"; provider: string; calls: CassetteCall[] }
  | { kind: "per_provider"; providers: Record<string, CassetteCall[]> };

/**
 * A parsed cassette.
 *
 * @example Value
 * ```ts
 * import type { Cassette } from "@relavium/session/llm";
 * const c: Cassette = { file: "a.json", version: "1.0", strict: false, queues: { kind: "single", provider: "openai", calls: [] } };
 * ```
 */
export interface Cassette {
  /** The file it was read from (for messages). */
  file: string;
  /** `schema_version`. */
  version: "1.0" | "1.1";
  /** Informational model id; never routes. */
  model?: string;
  /** v1.1 `strict`: unconsumed calls at exit are a fault. */
  strict: boolean;
  /**
   * v1.1 `context_window` (module addition): the window, in tokens, the
   * replayed providers declare, so measured automatic compaction can run
   * offline. Absent ⇒ unknown (no automatic compaction).
   */
  contextWindow?: number;
  /** The call queues. */
  queues: CassetteQueues;
}

/**
 * A cassette that failed to load: the file and each problem's JSON path.
 *
 * @example Value
 * ```ts
 * import type { CassetteError } from "@relavium/session/llm";
 * const e: CassetteError = { file: "a.json", issues: [{ path: "calls[1][0].type", message: "unknown chunk type" }] };
 * ```
 */
export interface CassetteError {
  /** The cassette file. */
  file: string;
  /** Problems, each at its JSON path (`""` = the document). */
  issues: ValidationIssue[];
}

const expectSchema = z.strictObject({
  model: z.string().exactOptional(),
  lastUserIncludes: z.string().exactOptional(),
  messagesInclude: z.array(z.string().min(1)).min(1).exactOptional(),
  tools: z.array(z.string()).exactOptional(),
  toolResultFor: z.string().min(1).exactOptional(),
  maxTokens: z.number().int().positive().exactOptional(),
});

const zodChecks: CassetteChecks = {
  chunk(raw) {
    const r = streamChunkSchema.safeParse(raw);
    if (r.success) return { ok: true, value: r.data };
    return {
      ok: false,
      issues: toIssues(r.error).map((i) => ({
        path: i.path,
        message: i.message.startsWith("Invalid discriminator")
          ? "unknown chunk type"
          : i.message,
      })),
    };
  },
  expect(raw) {
    const r = expectSchema.safeParse(raw);
    return r.success
      ? { ok: true, value: r.data }
      : { ok: false, issues: toIssues(r.error) };
  },
};

/**
 * Parses a cassette file's text. Bad JSON, an unknown version, an invalid
 * chunk (strict chunk schema), a non-array `calls`, unknown keys, and
 * v1.1-only features in a `"1.0"` file are errors naming the file and the
 * JSON path (e.g. `calls[1][0].type`).
 *
 * @param text The file's contents.
 * @param file The file name, for messages.
 * @returns The cassette, or every problem found.
 *
 * @example Parse a v1.0 cassette and a broken one
 * ```ts
 * import { parseCassette } from "@relavium/session/llm";
 * import assert from "node:assert/strict";
 * const good = parseCassette(JSON.stringify({ schema_version: "1.0", provider: "openai", calls: [[
 *   { type: "text_delta", text: "hi" },
 *   { type: "stop", stopReason: "stop", usage: { inputTokens: 1, outputTokens: 1 } },
 * ]] }), "ok.json");
 * assert.equal(good.ok, true);
 * const bad = parseCassette('{"schema_version":"1.0","provider":"openai","calls":[[{"type":"nope"}]]}', "bad.json");
 * assert.deepEqual(bad.ok ? [] : bad.error.issues, [{ path: "calls[0][0].type", message: "unknown chunk type" }]);
 * ```
 */
export function parseCassette(
  text: string,
  file: string,
): Result<Cassette, CassetteError> {
  return parseCassetteWith(text, file, zodChecks);
}
