/**
 * The internal tool definition of tools.md §1: what a registered tool
 * declares (id, strict parser, model schema, config-only keys, policy
 * class, policy target) and how it runs (only through a `ToolEffects`).
 *
 * @module
 */
import type { JsonSchema } from "../llm/provider.ts";
import type { ValidationIssue } from "../schema/issues.ts";
import type { Result } from "../schema/result.ts";
import type { ToolFailure } from "./failure.ts";
import type { FsAccess } from "./sandbox/fs_access.ts";
import type { ToolGuardrails } from "./sandbox/guardrail_lists.ts";
import type { ToolEffects } from "./effects.ts";
import type { ToolLimits } from "./sandbox/limits.ts";
import type { PermissionQuery } from "./sandbox/permission_query.ts";

/**
 * The policy class of a tool. It decides guardrails, the governed action
 * (tools.md §8) and the Deno permissions the tool needs (§10):
 *
 * - `fsWrite` ⇒ governed `fs_write`; `egress` ⇒ `egress`; `os` ⇒ `os`;
 * - `spawnsProcess` without `fixedProgram` ⇒ governed `process` (the
 *   command comes from the call, so `policyTarget` is required and the
 *   allowlist applies);
 * - `spawnsProcess` with `fixedProgram` (e.g. `git_status`) ⇒ not governed,
 *   no allowlist, needs `--allow-run=<fixedProgram>`;
 * - `requiresGateApproval` ⇒ the per-call gate (`git_commit`).
 *
 * @example The policy of `read_file`
 * ```ts
 * import type { ToolPolicy } from "@relavium/session/tools";
 * const p: ToolPolicy = { fsScoped: true, spawnsProcess: false, requiresGateApproval: false };
 * ```
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
  /** Touches the operating system (clipboard, notifications). */
  os?: boolean;
  /** Needs the explicit per-call gate (`git_commit`). */
  requiresGateApproval: boolean;
}

/**
 * What guardrails and the approval preview inspect.
 *
 * @example Value
 * ```ts
 * import type { PolicyTarget } from "@relavium/session/tools";
 * const t: PolicyTarget = { path: "src/a.ts" };
 * ```
 */
export interface PolicyTarget {
  /** Command line (`[command, ...args].join(" ")`) for the allowlist. */
  command?: string;
  /** The argv behind `command` (exact allowlist entries match by token). */
  argv?: readonly string[];
  /** URL for the egress checks (the preview shows its host only). */
  url?: string;
  /** Requested path, checked lexically before approval. */
  path?: string;
}

/**
 * What a tool's `dispatch` may use besides its args and the host.
 *
 * @example Shape
 * ```ts
 * import type { ToolRunContext } from "@relavium/session/tools";
 * type Limits = ToolRunContext["limits"];
 * ```
 */
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

/**
 * A tool's typed result: a value for the model, or an expected failure.
 *
 * @example Value
 * ```ts
 * import type { ToolRunResult } from "@relavium/session/tools";
 * const r: ToolRunResult = { ok: true, value: { entries: [] }, summary: "0 entries" };
 * ```
 */
export type ToolRunResult =
  | { ok: true; value: unknown; summary?: string }
  | { ok: false; error: ToolFailure };

/**
 * A registered tool (tools.md §1). Methods (not function properties) keep
 * `ToolDefinition<A>` assignable to `ToolDefinition<unknown>`, the form a
 * registry stores.
 *
 * @example A minimal tool
 * ```ts
 * import type { ToolDefinition } from "@relavium/session/tools";
 * const echo: ToolDefinition<{ text: string }> = {
 *   id: "echo",
 *   description: "Echo text",
 *   parse: (raw) => typeof raw === "object" && raw !== null && "text" in raw && typeof raw.text === "string" && Object.keys(raw).length === 1
 *     ? { ok: true, value: { text: raw.text } }
 *     : { ok: false, error: [{ path: "text", message: "expected a string" }] },
 *   llmParams: { type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false },
 *   policy: { fsScoped: false, spawnsProcess: false, requiresGateApproval: false },
 *   dispatch: (args) => Promise.resolve({ ok: true, value: args.text }),
 * };
 * ```
 */
export interface ToolDefinition<A> {
  /** Exact registry id (the model's tool name). */
  id: string;
  /** Description advertised to the model. */
  description: string;
  /**
   * Strict validator of the complete effective args (unknown keys
   * rejected); synchronous.
   */
  parse(raw: unknown): Result<A, ValidationIssue[]>;
  /** The only schema a model sees (config-only keys excluded). */
  llmParams: JsonSchema;
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
