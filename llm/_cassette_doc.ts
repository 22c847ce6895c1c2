/**
 * Private: the cassette document walk (cli.md §7), shared by the strict
 * zod-checked `parseCassette` and the zod-free `quickParseCassette`. Chunks
 * and `expect` objects are checked by the caller's {@linkcode CassetteChecks};
 * everything else (versions, keys, queues, terminal chunks) is here.
 *
 * @module
 */
import type { StreamChunk } from "./chunk.ts";
import type {
  Cassette,
  CassetteCall,
  CassetteError,
  CassetteExpect,
  CassetteQueues,
} from "./cassette.ts";
import type { ValidationIssue } from "../schema/issues.ts";
import type { Result } from "../schema/result.ts";

/**
 * One checked value, or its issues (paths relative to the value).
 *
 * @example
 * ```ts
 * import type { Checked } from "./_cassette_doc.ts";
 * const c: Checked<string> = { ok: false, issues: [{ path: "text", message: "required" }] };
 * ```
 */
export type Checked<T> = { ok: true; value: T } | {
  ok: false;
  issues: ValidationIssue[];
};

/**
 * How chunks and `expect` objects are checked.
 *
 * @example
 * ```ts
 * import type { CassetteChecks } from "./_cassette_doc.ts";
 * import type { StreamChunk } from "./chunk.ts";
 * import type { CassetteExpect } from "./cassette.ts";
 * const all: CassetteChecks = {
 *   chunk: (raw) => ({ ok: true, value: raw as StreamChunk }),
 *   expect: (raw) => ({ ok: true, value: raw as CassetteExpect }),
 * };
 * ```
 */
export interface CassetteChecks {
  /** One stream chunk. */
  chunk(raw: unknown): Checked<StreamChunk>;
  /** One v1.1 `expect` object. */
  expect(raw: unknown): Checked<CassetteExpect>;
}

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
  checks: CassetteChecks,
): StreamChunk[] {
  if (!Array.isArray(value)) {
    issues.add(path, "must be an array of chunks");
    return [];
  }
  const chunks: StreamChunk[] = [];
  let terminalAt = -1;
  value.forEach((raw, j) => {
    const r = checks.chunk(raw);
    if (!r.ok) {
      for (const i of r.issues) {
        issues.add(join(`${path}[${j}]`, i.path), i.message);
      }
      return;
    }
    if (terminalAt >= 0) {
      issues.add(`${path}[${j}]`, "chunk after the terminal stop/error");
    }
    if (r.value.type === "stop" || r.value.type === "error") terminalAt = j;
    chunks.push(r.value);
  });
  return chunks;
}

function parseCall(
  raw: unknown,
  path: string,
  v11: boolean,
  issues: Issues,
  checks: CassetteChecks,
): CassetteCall {
  if (Array.isArray(raw)) {
    return { chunks: parseChunks(raw, path, issues, checks) };
  }
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
    chunks: parseChunks(raw.chunks ?? [], join(path, "chunks"), issues, checks),
  };
  if ("expect" in raw) {
    const r = checks.expect(raw.expect);
    if (r.ok) call.expect = r.value;
    else {
      for (const i of r.issues) {
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
  checks: CassetteChecks,
): CassetteCall[] {
  if (!Array.isArray(raw)) {
    issues.add(path, "must be an array of calls");
    return [];
  }
  return raw.map((c, i) => parseCall(c, `${path}[${i}]`, v11, issues, checks));
}

function parseProviders(
  raw: unknown,
  issues: Issues,
  checks: CassetteChecks,
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
    else {out[id] = parseCalls(
        queue.calls,
        join(path, "calls"),
        true,
        issues,
        checks,
      );}
  }
  return out;
}

function parseDocument(
  doc: Json,
  file: string,
  checks: CassetteChecks,
): Result<Cassette, Issues> {
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
      providers: parseProviders(doc.providers, issues, checks),
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
      calls: "calls" in doc
        ? parseCalls(doc.calls, "calls", v11, issues, checks)
        : [],
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
 * Parses a cassette file's text with the given chunk and `expect` checks.
 *
 * @param text The file's contents.
 * @param file The file name, for messages.
 * @param checks How chunks and `expect` objects are checked.
 * @returns The cassette, or every problem found.
 *
 * @example Accept every chunk (a test double)
 * ```ts
 * import { parseCassetteWith } from "./_cassette_doc.ts";
 * import type { StreamChunk } from "./chunk.ts";
 * import type { CassetteExpect } from "./cassette.ts";
 * import assert from "node:assert/strict";
 * const r = parseCassetteWith('{"schema_version":"1.0","provider":"p","calls":[]}', "c.json", {
 *   chunk: (raw) => ({ ok: true, value: raw as StreamChunk }),
 *   expect: (raw) => ({ ok: true, value: raw as CassetteExpect }),
 * });
 * assert.equal(r.ok, true);
 * ```
 */
export function parseCassetteWith(
  text: string,
  file: string,
  checks: CassetteChecks,
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
  const r = parseDocument(doc, file, checks);
  return r.ok ? r : { ok: false, error: { file, issues: r.error.list } };
}
