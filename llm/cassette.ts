/**
 * Fixture cassettes v1.0 and v1.1 (cli.md §7, DECISIONS.md 16): strict
 * parsing with file- and path-attributed errors.
 *
 * @module
 */
import { z } from "zod";
import { type StreamChunk, streamChunkSchema } from "./chunk.ts";
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

const V10_KEYS = new Set(["schema_version", "provider", "model", "calls"]);
const V11_KEYS = new Set([
  ...V10_KEYS,
  "providers",
  "strict",
  "context_window",
]);
const NEEDS_11 = 'requires schema_version "1.1"';

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function join(prefix: string, sub: string): string {
  if (sub === "") return prefix;
  return sub.startsWith("[") ? `${prefix}${sub}` : `${prefix}.${sub}`;
}

class Issues {
  readonly list: ValidationIssue[] = [];
  add(path: string, message: string): void {
    this.list.push({ path, message });
  }
}

function parseChunks(
  value: unknown,
  path: string,
  issues: Issues,
): StreamChunk[] {
  if (!Array.isArray(value)) {
    issues.add(path, "must be an array of chunks");
    return [];
  }
  const chunks: StreamChunk[] = [];
  let terminalAt = -1;
  value.forEach((raw, j) => {
    const r = streamChunkSchema.safeParse(raw);
    if (!r.success) {
      for (const i of toIssues(r.error)) {
        const message = i.message.startsWith("Invalid discriminator")
          ? "unknown chunk type"
          : i.message;
        issues.add(join(`${path}[${j}]`, i.path), message);
      }
      return;
    }
    if (terminalAt >= 0) {
      issues.add(`${path}[${j}]`, "chunk after the terminal stop/error");
    }
    if (r.data.type === "stop" || r.data.type === "error") terminalAt = j;
    chunks.push(r.data);
  });
  return chunks;
}

function parseCall(
  raw: unknown,
  path: string,
  v11: boolean,
  issues: Issues,
): CassetteCall {
  if (Array.isArray(raw)) return { chunks: parseChunks(raw, path, issues) };
  if (!isObject(raw)) {
    const shape = v11 ? "an array of chunks or {chunks, expect}" : "an array";
    issues.add(path, `must be ${shape}`);
    return { chunks: [] };
  }
  if (!v11) {
    issues.add(path, `a {chunks, expect} call ${NEEDS_11}`);
    return { chunks: [] };
  }
  for (const key of Object.keys(raw)) {
    if (key !== "chunks" && key !== "expect") {
      issues.add(join(path, key), "unknown key");
    }
  }
  if (!("chunks" in raw)) issues.add(join(path, "chunks"), "required");
  const call: CassetteCall = {
    chunks: parseChunks(raw.chunks ?? [], join(path, "chunks"), issues),
  };
  if ("expect" in raw) {
    const r = expectSchema.safeParse(raw.expect);
    if (r.success) call.expect = r.data;
    else {
      for (const i of toIssues(r.error)) {
        issues.add(join(join(path, "expect"), i.path), i.message);
      }
    }
  }
  return call;
}

function parseCalls(
  raw: unknown,
  path: string,
  v11: boolean,
  issues: Issues,
): CassetteCall[] {
  if (!Array.isArray(raw)) {
    issues.add(path, "must be an array of calls");
    return [];
  }
  return raw.map((c, i) => parseCall(c, `${path}[${i}]`, v11, issues));
}

function parseProviders(
  raw: unknown,
  issues: Issues,
): Record<string, CassetteCall[]> {
  const out: Record<string, CassetteCall[]> = {};
  if (!isObject(raw) || Object.keys(raw).length === 0) {
    issues.add("providers", "must be a non-empty object of provider ids");
    return out;
  }
  for (const [id, queue] of Object.entries(raw)) {
    const path = join("providers", id);
    if (id === "") issues.add(path, "provider id must not be empty");
    if (!isObject(queue)) {
      issues.add(path, "must be an object with calls");
      continue;
    }
    for (const key of Object.keys(queue)) {
      if (key !== "calls") issues.add(join(path, key), "unknown key");
    }
    if (!("calls" in queue)) issues.add(join(path, "calls"), "required");
    else out[id] = parseCalls(queue.calls, join(path, "calls"), true, issues);
  }
  return out;
}

function parseDocument(doc: Json, file: string): Result<Cassette, Issues> {
  const issues = new Issues();
  const version = doc.schema_version;
  if (version !== "1.0" && version !== "1.1") {
    issues.add(
      "schema_version",
      version === undefined
        ? "required"
        : `unsupported version ${
          JSON.stringify(version)
        } (expected "1.0" or "1.1")`,
    );
    return { ok: false, error: issues };
  }
  const v11 = version === "1.1";
  for (const key of Object.keys(doc)) {
    if (!V11_KEYS.has(key)) issues.add(key, "unknown key");
    else if (!v11 && !V10_KEYS.has(key)) issues.add(key, NEEDS_11);
  }
  if ("model" in doc && typeof doc.model !== "string") {
    issues.add("model", "must be a string");
  }
  if (v11 && "strict" in doc && typeof doc.strict !== "boolean") {
    issues.add("strict", "must be a boolean");
  }
  const window = doc.context_window;
  if (
    v11 && "context_window" in doc &&
    (typeof window !== "number" || !Number.isSafeInteger(window) || window < 1)
  ) {
    issues.add("context_window", "must be a positive integer");
  }
  let queues: CassetteQueues;
  if (v11 && "providers" in doc) {
    if ("provider" in doc || "calls" in doc) {
      issues.add("providers", "cannot be combined with provider/calls");
    }
    queues = {
      kind: "per_provider",
      providers: parseProviders(doc.providers, issues),
    };
  } else {
    const provider = doc.provider;
    if (typeof provider !== "string" || provider === "") {
      issues.add(
        "provider",
        provider === undefined ? "required" : "must be a non-empty string",
      );
    }
    if (!("calls" in doc)) issues.add("calls", "required");
    queues = {
      kind: "single",
      provider: typeof provider === "string" ? provider : "",
      calls: "calls" in doc ? parseCalls(doc.calls, "calls", v11, issues) : [],
    };
  }
  if (issues.list.length > 0) return { ok: false, error: issues };
  const cassette: Cassette = {
    file,
    version,
    strict: v11 && doc.strict === true,
    queues,
  };
  if (typeof doc.model === "string") cassette.model = doc.model;
  if (v11 && typeof window === "number") cassette.contextWindow = window;
  return { ok: true, value: cassette };
}

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
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    const detail = e instanceof Error ? e.message : String(e);
    return {
      ok: false,
      error: {
        file,
        issues: [{ path: "", message: `invalid JSON: ${detail}` }],
      },
    };
  }
  if (!isObject(doc)) {
    return {
      ok: false,
      error: { file, issues: [{ path: "", message: "must be a JSON object" }] },
    };
  }
  const r = parseDocument(doc, file);
  return r.ok ? r : { ok: false, error: { file, issues: r.error.list } };
}
