/**
 * Fixture cassettes, versions 1.0 and 1.1: one strict zod schema of the
 * document, and {@linkcode parseCassette}, whose errors name the file and
 * the key path of every problem.
 *
 * @module
 */
import { z } from "../schema/zod.ts";
import type { StreamChunk } from "./chunk.ts";
import { streamChunkSchema } from "./_chunk_schema.ts";
import { formatPath, type ValidationIssue } from "../schema/issues.ts";
import { err, ok, type Result } from "../schema/result.ts";
import type { Holds, Same } from "../schema/type_equal.ts";

/**
 * Per-call request expectations (v1.1). Every present key must match.
 */
export interface CassetteExpect {
  /** The request's model id. */
  model?: string;
  /** A substring of the request's last user message text. */
  lastUserIncludes?: string;
  /**
   * Substrings that must each appear in the text of some request message
   * (any role): proves earlier turns or a summary reached the request.
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
 * One recorded call: its chunks, ending in exactly one terminal `stop` or
 * `error` chunk (a cut stream is recorded as an `error` chunk), and
 * optional expectations.
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
 */
export type CassetteQueues =
  | { kind: "single"; provider: string; calls: CassetteCall[] }
  | { kind: "per_provider"; providers: Record<string, CassetteCall[]> };

/**
 * A parsed cassette.
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
   * v1.1 `context_window`: the window, in tokens, the
   * replayed providers declare, so measured automatic compaction can run
   * offline. Absent ⇒ unknown (no automatic compaction).
   */
  contextWindow?: number;
  /**
   * The call queues: the replay's own data (what a cassette holds is read
   * through `denoRuntime({ cassette })`, not by hand).
   *
   * @ignore
   */
  queues: CassetteQueues;
}

/**
 * A cassette that failed to load: the file and each problem's JSON path.
 */
export interface CassetteError {
  /** The cassette file. */
  file: string;
  /** Problems, each at its JSON path (`""` = the document). */
  issues: ValidationIssue[];
}

const NEEDS_11 = 'requires schema_version "1.1"';

/** "required" for a missing value, `must be <what>` for one of another type. */
function must(what: string): { error: (issue: { input?: unknown }) => string } {
  return {
    error: (issue) =>
      issue.input === undefined ? "required" : `must be ${what}`,
  };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * A chunk list: each chunk strict, a terminal `stop`/`error` chunk last and
 * nothing after it. A call without a terminal is invalid here, at load,
 * rather than a transport failure when it is replayed.
 */
function chunkList(
  params: { error: (issue: { input?: unknown }) => string },
): z.ZodMiniType<StreamChunk[]> {
  return z.array(streamChunkSchema, params).check(
    z.superRefine((chunks, ctx) => {
      const end = chunks.findIndex((c) =>
        c.type === "stop" || c.type === "error"
      );
      if (end < 0) {
        ctx.addIssue({
          code: "custom",
          path: [],
          message: "no terminal stop/error chunk (a cut stream is recorded " +
            "as an error chunk)",
        });
        return;
      }
      for (let j = end + 1; j < chunks.length; j++) {
        ctx.addIssue({
          code: "custom",
          path: [j],
          message: "chunk after the terminal stop/error",
        });
      }
    }),
  );
}

const expectInferred = z.strictObject({
  model: z.exactOptional(z.string()),
  lastUserIncludes: z.exactOptional(z.string()),
  messagesInclude: z.exactOptional(
    z.array(z.string().check(z.minLength(1))).check(z.minLength(1)),
  ),
  tools: z.exactOptional(z.array(z.string())),
  toolResultFor: z.exactOptional(z.string().check(z.minLength(1))),
  maxTokens: z.exactOptional(z.number().check(z.int(), z.positive())),
});

const expectSchema: z.ZodMiniType<CassetteExpect> = expectInferred;

const provider = z.string(must("a non-empty string")).check(
  z.minLength(1, { error: "must be a non-empty string" }),
);
const model = z.exactOptional(z.string({ error: "must be a string" }));
const only11 = z.exactOptional(z.never({ error: NEEDS_11 }));

const v10Schema = z.strictObject({
  schema_version: z.literal("1.0"),
  provider,
  model,
  strict: only11,
  context_window: only11,
  providers: only11,
  calls: z.array(
    chunkList({
      error: (issue) =>
        isObject(issue.input)
          ? `a {chunks, expect} call ${NEEDS_11}`
          : "must be an array",
    }),
    must("an array of calls"),
  ),
});

/** A v1.1 call: a chunk list, or `{ chunks, expect }`. */
const v11Call = z.union([
  chunkList(must("an array of chunks")),
  z.strictObject({
    chunks: chunkList(must("an array of chunks")),
    expect: z.exactOptional(expectSchema),
  }),
], { error: "must be an array of chunks or {chunks, expect}" });

const v11Calls = z.array(v11Call, must("an array of calls"));

const NON_EMPTY_IDS = "must be a non-empty object of provider ids";

const providersSchema = z.pipe(
  z.transform((raw: unknown, payload) => {
    // zod's records skip an own `__proto__` key; refuse it instead.
    if (isObject(raw) && Object.hasOwn(raw, "__proto__")) {
      payload.issues.push({
        code: "custom",
        path: ["__proto__"],
        message: "not a usable provider id",
        input: raw,
      });
    }
    return raw;
  }),
  z.record(
    z.string(),
    z.strictObject({ calls: v11Calls }, {
      error: "must be an object with calls",
    }),
    { error: NON_EMPTY_IDS },
  ).check(z.superRefine((providers, ctx) => {
    const ids = Object.keys(providers);
    if (ids.length === 0) {
      ctx.addIssue({ code: "custom", message: NON_EMPTY_IDS });
    }
    if (ids.includes("")) {
      ctx.addIssue({
        code: "custom",
        message: "provider id must not be empty",
      });
    }
  })),
);

const v11Schema = z.strictObject({
  schema_version: z.literal("1.1"),
  provider: z.exactOptional(provider),
  model,
  strict: z.exactOptional(z.boolean({ error: "must be a boolean" })),
  context_window: z.exactOptional(
    z.int({ error: "must be a positive integer" }).check(
      z.minimum(1, { error: "must be a positive integer" }),
    ),
  ),
  calls: z.exactOptional(v11Calls),
  providers: z.exactOptional(providersSchema),
}).check(z.superRefine((doc, ctx) => {
  // One queue (provider + calls) or one per provider, never both.
  if ("providers" in doc) {
    if ("provider" in doc || "calls" in doc) {
      ctx.addIssue({
        code: "custom",
        path: ["providers"],
        message: "cannot be combined with provider/calls",
      });
    }
    return;
  }
  for (const key of ["provider", "calls"]) {
    if (!(key in doc)) {
      ctx.addIssue({ code: "custom", path: [key], message: "required" });
    }
  }
}, { when: () => true }));

const cassetteSchema = z.discriminatedUnion("schema_version", [
  v10Schema,
  v11Schema,
], {
  error: (issue) => {
    if (issue.code !== "invalid_union") return "must be a JSON object";
    const version = isObject(issue.input)
      ? issue.input.schema_version
      : undefined;
    return version === undefined
      ? "required"
      : `unsupported version ${
        JSON.stringify(version)
      } (expected "1.0" or "1.1")`;
  },
});

/**
 * zod's issues at their key paths. An unknown key is reported at its own
 * path; a union none of whose branches fits is reported as itself, and
 * one whose input has the shape of exactly one branch (a v1.1 call that is
 * an array, or an object) by that branch's issues.
 */
function issuesOf(
  issues: readonly z.core.$ZodIssue[],
  prefix: readonly PropertyKey[],
): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  const push = (i: ValidationIssue) => {
    // zod runs a string's checks after a type mismatch too; one line each.
    const last = out.at(-1);
    if (last?.path !== i.path || last.message !== i.message) out.push(i);
  };
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        push({ path: formatPath([...path, key]), message: "unknown key" });
      }
      continue;
    }
    if (issue.code === "invalid_union") {
      const fitting = issue.errors.filter((branch) =>
        !branch.every((i) => i.path.length === 0 && i.code === "invalid_type")
      );
      const [only] = fitting;
      if (fitting.length === 1 && only !== undefined) {
        for (const i of issuesOf(only, path)) push(i);
        continue;
      }
    }
    push({ path: formatPath(path), message: issue.message });
  }
  return out;
}

function toCall(raw: StreamChunk[] | CassetteCall): CassetteCall {
  return Array.isArray(raw) ? { chunks: raw } : raw;
}

/**
 * Parses a cassette file's text against the strict cassette schema. Bad
 * JSON, an unknown version, an invalid chunk, a call without a terminal
 * `stop`/`error` chunk or with a chunk after it, unknown keys, and v1.1-only features in a `"1.0"` file are
 * errors naming the file and the key path (e.g. `calls[1][0].type`).
 *
 * @param text The file's contents.
 * @param file The file name, kept on the cassette and named in errors.
 * @returns The cassette, or the file and every problem found.
 *
 * @example Parse a v1.0 cassette and a broken one
 * ```ts
 * import { parseCassette } from "@relavium/session/llm";
 * import assert from "node:assert/strict";
 * const good = parseCassette(JSON.stringify({ schema_version: "1.0", provider: "openai", calls: [[
 *   { type: "text_delta", text: "hi" },
 *   { type: "stop", stopReason: "stop", usage: { inputTokens: 1, outputTokens: 1 } },
 * ]] }), "ok.json");
 * assert.equal(good.ok && good.value.queues.kind, "single");
 * const bad = parseCassette('{"schema_version":"1.0","provider":"openai","calls":[[{"type":"nope"}]]}', "bad.json");
 * assert.deepEqual(bad.ok ? undefined : bad.error, {
 *   file: "bad.json",
 *   issues: [{ path: "calls[0][0].type", message: "unknown chunk type" }],
 * });
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
    return err({
      file,
      issues: [{ path: "", message: `invalid JSON: ${detail}` }],
    });
  }
  // One parse per file: compiling zod's generated fast path costs more
  // than it saves here, even for a cassette of thousands of chunks.
  const parsed = cassetteSchema.safeParse(doc, { jitless: true });
  if (!parsed.success) {
    return err({ file, issues: issuesOf(parsed.error.issues, []) });
  }
  const data = parsed.data;
  const cassette: Cassette = {
    file,
    version: data.schema_version,
    strict: data.schema_version === "1.1" && data.strict === true,
    queues: { kind: "single", provider: "", calls: [] },
  };
  if (data.model !== undefined) cassette.model = data.model;
  if (data.schema_version === "1.1" && data.context_window !== undefined) {
    cassette.contextWindow = data.context_window;
  }
  if (data.schema_version === "1.1" && data.providers !== undefined) {
    const providers: Record<string, CassetteCall[]> = {};
    for (const [id, queue] of Object.entries(data.providers)) {
      providers[id] = queue.calls.map(toCall);
    }
    cassette.queues = { kind: "per_provider", providers };
  } else {
    cassette.queues = {
      kind: "single",
      provider: data.provider ?? "",
      calls: (data.calls ?? []).map(toCall),
    };
  }
  return ok(cassette);
}

// Each written-out type equals what its schema infers.
type _expectInferredCheck = Holds<
  Same<z.infer<typeof expectInferred>, CassetteExpect>
>;
