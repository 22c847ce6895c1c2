/**
 * What a registered tool declares (id, strict parser, model schema,
 * config-only keys, policy class, policy target) and how it runs (only
 * through a `ToolEffects`), and {@linkcode defineTool}, which derives the
 * parser and the model schema from one zod schema.
 *
 * @module
 */
import { z } from "zod";
import type { JsonSchema } from "../llm/provider.ts";
import { toIssues, type ValidationIssue } from "../schema/issues.ts";
import { err, ok, type Result } from "../schema/result.ts";
import type { ToolFailure } from "./failure.ts";
import type { FsAccess } from "./sandbox/fs_access.ts";
import type { ToolEffects } from "./effects.ts";
import type { ToolLimits } from "./sandbox/limits.ts";
import type { PermissionQuery } from "./sandbox/permission_query.ts";

/**
 * The policy class of a tool. It decides guardrails, the governed action
 * and the Deno permissions the tool needs:
 *
 * - `fsWrite` ⇒ governed `fs_write`; `egress` ⇒ `egress`; `os` ⇒ `os`;
 * - `spawnsProcess` without `fixedProgram` ⇒ governed `process` (the
 *   command comes from the call, so `policyTarget` is required and the
 *   allowlist applies);
 * - `spawnsProcess` with `fixedProgram` (e.g. `git_status`) ⇒ not governed,
 *   no allowlist, needs `--allow-run=<fixedProgram>`;
 * - `requiresGateApproval` ⇒ the per-call gate (`git_commit`).
 */
export interface ToolPolicy {
  /** Reads or writes paths through the jail. */
  fsScoped: boolean;
  /** Writes files (governed `fs_write`). */
  fsWrite?: boolean;
  /** Spawns a child process. */
  spawnsProcess: boolean;
  /** The one program a non-governed process tool runs (e.g. `git`). */
  fixedProgram?: string;
  /** Network egress class (governed `egress`). */
  egress?: "http" | "search" | "mcp";
  /** Touches the operating system or anything outside the workspace. */
  os?: boolean;
  /** Needs the explicit per-call gate (`git_commit`). */
  requiresGateApproval: boolean;
}

/** What guardrails and the approval preview inspect. */
export interface PolicyTarget {
  /** Command line (`[command, ...args].join(" ")`) for the allowlist. */
  command?: string;
  /** The argv behind `command` (exact allowlist entries match by token). */
  argv?: readonly string[];
  /** URL for the egress checks (the preview shows its host only). */
  url?: string;
  /** Requested path, checked lexically before approval. */
  path?: string;
  /** A write's new text and whether it appends (shown to the approver). */
  content?: { text: string; append: boolean };
  /** Never cache an `always` answer for this call (a destructive tool). */
  uncacheable?: boolean;
}

/**
 * The guardrail configuration of a registry (from `[chat]`
 * `allowed_commands`, `allowed_command_globs`, `allowed_domains`). Every
 * list defaults to empty, which denies everything.
 */
export interface ToolGuardrails {
  /** Exact command lines a process tool may run. */
  allowedCommands?: readonly string[];
  /** Wildcard patterns (`*`, `?`) over the whole command line. */
  allowedCommandGlobs?: readonly string[];
  /** Exact hosts `http_request` may reach (`[]` ⇒ none). */
  allowedDomains?: readonly string[];
  /**
   * Test-only: lets `http_request` reach `127.0.0.0/8` and `::1` literals.
   * Never set it outside tests; the CLI never does.
   */
  allowLoopbackForTests?: boolean;
}

/** What a tool's `dispatch` may use besides its args and the host. */
export interface ToolRunContext {
  /** Aborts the call; pass it to every host call that takes one. */
  signal: AbortSignal;
  /** Jailed filesystem access for this operation. */
  fs: FsAccess;
  /** Effective limits. */
  limits: ToolLimits;
  /** The workspace (canonical, as configured). */
  workingDir: string;
  /** Deno permission query for per-target checks. */
  permissions: PermissionQuery;
  /** Allowlists and egress options (re-checked by tools before effects). */
  guardrails?: Readonly<ToolGuardrails>;
}

/** A tool's typed result: a value for the model, or an expected failure. */
export type ToolRunResult =
  | { ok: true; value: unknown; summary?: string }
  | { ok: false; error: ToolFailure };

/**
 * A registered tool. Methods (not function properties) keep
 * `ToolDefinition<A>` assignable to `ToolDefinition<unknown>`, the form a
 * registry stores. Declare one with {@linkcode defineTool} (or a custom
 * tool with `tool()`), so the parser and the model schema come from one
 * zod schema.
 */
export interface ToolDefinition<A = unknown> {
  /** Exact registry id (the model's tool name). */
  id: string;
  /** Description advertised to the model. */
  description: string;
  /**
   * Strict, synchronous validator of the complete effective args (unknown
   * keys rejected): the value, or every problem with its key path.
   */
  parse(raw: unknown): Result<A, ValidationIssue[]>;
  /**
   * The only schema a model sees, a JSON Schema object (config-only keys
   * excluded).
   */
  readonly llmParams: Record<string, unknown>;
  /** Keys supplied by configuration only; never advertised; config wins. */
  configOnly?: readonly string[];
  /** Policy class. */
  policy: ToolPolicy;
  /** What guardrails and previews inspect. */
  policyTarget?(args: A): PolicyTarget;
  /** Runs the effect through `host` only. */
  dispatch(
    args: A,
    host: ToolEffects,
    ctx: ToolRunContext,
  ): Promise<ToolRunResult>;
}

/**
 * A zod schema whose parsed value is `T`: any zod (v4) schema fits, and
 * the strict object of the arguments is the usual one. Only its
 * `safeParse` is named here; the model-facing JSON Schema is generated
 * from the zod schema itself.
 */
export interface ToolInputSchema<T> {
  /** zod's non-throwing parse. */
  safeParse(
    raw: unknown,
  ): { success: true; data: T } | { success: false; error: unknown };
}

function asZod<T>(schema: ToolInputSchema<T>, id: string): z.ZodType<T> {
  if (typeof schema !== "object" || schema === null || !("_zod" in schema)) {
    throw new TypeError(
      `Cannot declare tool ${
        JSON.stringify(id)
      }: its schema is not a zod schema`,
    );
  }
  return schema as unknown as z.ZodType<T>;
}

/**
 * The model-facing JSON Schema of a zod schema: its input side, without
 * the `$schema` marker and without the config-only keys.
 */
function modelSchema(
  schema: z.ZodType,
  configOnly: readonly string[],
): JsonSchema {
  const { $schema: _, properties, required, ...rest } = z.toJSONSchema(
    schema,
    { io: "input" },
  );
  if (properties === undefined) return rest;
  const advertised = Object.fromEntries(
    Object.entries(properties).filter(([k]) => !configOnly.includes(k)),
  );
  const needed = (required ?? []).filter((k) => !configOnly.includes(k));
  return {
    ...rest,
    properties: advertised,
    ...(needed.length === 0 ? {} : { required: needed }),
  };
}

/**
 * Declares a tool once: `schema` (a strict zod object of the complete
 * effective arguments, config-only keys included) becomes its synchronous
 * `parse` and, on first use and then reused, its model-facing JSON Schema
 * (`z.toJSONSchema` of the input side, config-only keys left out; field
 * descriptions come from `.describe()`).
 *
 * @param schema The argument contract.
 * @param spec Everything else of the definition.
 * @returns The definition.
 * @throws {TypeError} When `schema` is not a zod schema; from `llmParams`
 *   when it has no JSON Schema form (a transform, a date), which the
 *   registry reports at creation.
 *
 * @example A tool whose schema is its contract
 * ```ts
 * import { defineTool } from "@relavium/session/tools";
 * import { z } from "zod";
 * import assert from "node:assert/strict";
 *
 * const shout = defineTool(
 *   z.strictObject({ text: z.string().min(1).describe("What to shout") }),
 *   {
 *     id: "shout",
 *     description: "Upper-case a text",
 *     policy: { fsScoped: false, spawnsProcess: false, requiresGateApproval: false },
 *     dispatch: (args) => Promise.resolve({ ok: true, value: args.text.toUpperCase() }),
 *   },
 * );
 * assert.deepEqual(shout.parse({ text: "hi" }), { ok: true, value: { text: "hi" } });
 * assert.deepEqual(shout.parse({ text: "" }), {
 *   ok: false,
 *   error: [{ path: "text", message: "Too small: expected string to have >=1 characters" }],
 * });
 * assert.deepEqual(shout.llmParams, {
 *   type: "object",
 *   properties: { text: { type: "string", minLength: 1, description: "What to shout" } },
 *   required: ["text"],
 *   additionalProperties: false,
 * });
 * ```
 */
export function defineTool<A>(
  schema: ToolInputSchema<A>,
  spec: Omit<ToolDefinition<A>, "parse" | "llmParams">,
): ToolDefinition<A> {
  const zod = asZod(schema, spec.id);
  let cached: JsonSchema | undefined;
  return {
    ...spec,
    parse(raw): Result<A, ValidationIssue[]> {
      const r = zod.safeParse(raw);
      return r.success ? ok(r.data) : err(toIssues(r.error));
    },
    get llmParams(): JsonSchema {
      cached ??= modelSchema(zod, spec.configOnly ?? []);
      return cached;
    },
  };
}
