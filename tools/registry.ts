/**
 * The tool seam the engine dispatches through (tools.md §1). The session
 * knows only these types; the pipeline, built-ins, jail and permission
 * layer live behind {@linkcode ToolRegistry}.
 *
 * @module
 */
import type { ToolDef } from "../llm/provider.ts";
import type {
  ErrorCode,
  GovernedAction,
  SessionError,
} from "../schema/event.ts";

/**
 * What a person is asked to approve. Previews are secret-free.
 *
 * @example Value
 * ```ts
 * import type { ApprovalRequest } from "@relavium/session/tools";
 * const r: Omit<ApprovalRequest, "signal"> = { toolId: "write_file", action: "fs_write", preview: { path: "a.txt" }, cacheable: true };
 * ```
 */
export interface ApprovalRequest {
  /** The registry id of the tool asking. */
  toolId: string;
  /** The governed action class (tools.md §8). */
  action: GovernedAction;
  /** Secret-free preview: `{path}`, `{command}`, `{host}` or `{}`. */
  preview: { path?: string; command?: string; host?: string };
  /** `false` for blank previews and protected-path prompts. */
  cacheable: boolean;
  /** Aborts with the turn; an answer after abort still cancels. */
  signal: AbortSignal;
}

/**
 * What a turn policy sees when it may decide without asking a person
 * (see {@linkcode TurnPolicy}'s `decide`).
 *
 * @example Value
 * ```ts
 * import type { ApprovalCheck } from "@relavium/session/tools";
 * const c: ApprovalCheck = { toolId: "write_file", action: "fs_write", preview: { path: ".bashrc" }, cacheable: false, protectedPath: true };
 * ```
 */
export interface ApprovalCheck {
  /** The registry id of the tool asking. */
  toolId: string;
  /** The governed action class (tools.md §8). */
  action: GovernedAction;
  /** Secret-free preview: `{path}`, `{command}`, `{host}` or `{}`. */
  preview: { path?: string; command?: string; host?: string };
  /** `false` for blank previews and protected-path prompts. */
  cacheable: boolean;
  /** `true` for a write to a protected path: never auto-approved. */
  protectedPath: boolean;
}

/**
 * A decision a turn policy takes without asking anyone: approve, or deny
 * with a secret-free reason (for example "not allowed in ask mode").
 *
 * @example Value
 * ```ts
 * import type { PolicyVerdict } from "@relavium/session/tools";
 * const v: PolicyVerdict = { approve: false, reason: "interactive approval is unavailable" };
 * ```
 */
export type PolicyVerdict = { approve: true } | {
  approve: false;
  reason: string;
};

/**
 * A person's answer.
 *
 * @example Value
 * ```ts
 * import type { ApprovalDecision } from "@relavium/session/tools";
 * const d: ApprovalDecision = "once";
 * ```
 */
export type ApprovalDecision = "once" | "always" | "reject";

/**
 * The per-turn policy a host sets with `setTurnPolicy`: a best-effort
 * advertise filter and the authoritative confirm hook. Any policy activates
 * the approval regime (no `confirm` ⇒ governed actions denied).
 *
 * @example Value
 * ```ts
 * import type { TurnPolicy } from "@relavium/session/tools";
 * const readOnly: TurnPolicy = { advertise: (id) => id === "read_file" };
 * ```
 */
export interface TurnPolicy {
  /** Best-effort filter of advertised tool ids (`false` hides a tool). */
  advertise?(toolId: string): boolean;
  /**
   * Optional: decides a governed action without a person (mode rules, the
   * `always` cache). `undefined` ⇒ ask through `confirm`, announced by
   * `agent:approval_requested`; a verdict ⇒ no prompt and no event.
   */
  decide?(check: ApprovalCheck): PolicyVerdict | undefined;
  /** Asks a person; authoritative. Absent ⇒ governed actions are denied. */
  confirm?(request: ApprovalRequest): Promise<ApprovalDecision>;
}

/**
 * One model-issued call, as the engine hands it to the registry.
 *
 * @example Value
 * ```ts
 * import type { ToolCall } from "@relavium/session/tools";
 * const c: ToolCall = { id: "session-tool:1:0", name: "read_file", args: { path: "a" } };
 * ```
 */
export interface ToolCall {
  /** Engine id `session-tool:<turnKey>:<slot>`. */
  id: string;
  /** The raw model-chosen name. */
  name: string;
  /** Parsed JSON args (`{}` when empty or unparseable). */
  args: unknown;
  /** Executed by the provider itself: never dispatched here. */
  providerExecuted?: boolean;
}

/**
 * Decision of a pre-egress check.
 *
 * @example Value
 * ```ts
 * import type { EgressDecision } from "@relavium/session/tools";
 * const d: EgressDecision = { allow: false, error: { code: "internal", message: "Session store failed", retryable: false } };
 * ```
 */
export type EgressDecision = { allow: true } | {
  allow: false;
  error: SessionError;
};

/**
 * What a dispatch may use besides the call.
 *
 * @example Shape
 * ```ts
 * import type { ToolDispatchContext } from "@relavium/session/tools";
 * const ctx: Omit<ToolDispatchContext, "signal" | "emitApproval"> = { granted: ["read_file"], interactive: false, admit: () => ({ allow: true }) };
 * ```
 */
export interface ToolDispatchContext {
  /** Aborts the call (turn abort or session cancel). */
  signal: AbortSignal;
  /** The session's effective grant (agent tools ∩ session narrowing). */
  granted: readonly string[];
  /** The turn policy snapshotted at turn start, if any. */
  policy?: TurnPolicy;
  /** Whether a person can answer prompts (false: CI, `--json`, pipes). */
  interactive: boolean;
  /** Publishes `agent:approval_requested` (the engine adds `nodeId`). */
  emitApproval(
    request: Omit<ApprovalRequest, "signal" | "cacheable">,
  ): void;
  /** Checked right before the host effect (failure latch, budget). */
  admit(): EgressDecision;
}

/**
 * Common fields of every outcome.
 *
 * @example Value
 * ```ts
 * import type { ToolOutcomeBase } from "@relavium/session/tools";
 * const b: ToolOutcomeBase = { toolId: "read_file", displayInput: { path: "a" }, summary: "9 bytes" };
 * ```
 */
export interface ToolOutcomeBase {
  /** Resolved registry id, or `unknown_tool`. */
  toolId: string;
  /** Sanitised input for `agent:tool_call` (config-only, secrets removed). */
  displayInput: Record<string, unknown>;
  /** Bounded summary (≤ 500 chars) for `agent:tool_result`. */
  summary: string;
}

/**
 * The result of one dispatch. `ok` and `feedback` go back to the model as a
 * `tool_result` (bounded, untrusted); `fatal` ends the turn.
 *
 * @example Value
 * ```ts
 * import type { ToolOutcome } from "@relavium/session/tools";
 * const o: ToolOutcome = { kind: "ok", toolId: "read_file", displayInput: {}, summary: "ok", modelResult: "{}" };
 * ```
 */
export type ToolOutcome =
  | ToolOutcomeBase & { kind: "ok"; modelResult: string }
  | ToolOutcomeBase & {
    kind: "feedback";
    modelResult: string;
    outcome: "error" | "denied";
    code: ErrorCode;
  }
  | ToolOutcomeBase & {
    kind: "fatal";
    outcome: "error" | "denied" | "cancelled";
    error: SessionError;
  };

/**
 * A user's `!` command, already tokenised (cli.md §6): the program and
 * its arguments. The allowlist target is `[command, ...args].join(" ")`.
 *
 * @example Value
 * ```ts
 * import type { UserCommandRequest } from "@relavium/session/tools";
 * const r: UserCommandRequest = { command: "git", args: ["status"] };
 * ```
 */
export interface UserCommandRequest {
  /** The program (a name on the host PATH, or a path). */
  command: string;
  /** Its arguments, passed as-is (no shell). */
  args: readonly string[];
}

/**
 * What a user-command run may use: a {@linkcode ToolDispatchContext}
 * without the grant (the one-off grant is the user's, never the model's).
 *
 * @example Shape
 * ```ts
 * import type { UserCommandContext } from "@relavium/session/tools";
 * const ctx: Omit<UserCommandContext, "signal" | "emitApproval"> = { interactive: true, admit: () => ({ allow: true }) };
 * ```
 */
export type UserCommandContext = Omit<ToolDispatchContext, "granted">;

/**
 * The outcome of a user `!` command (session.md §3). A non-zero exit is
 * still `ran`; `denied` with `allowlist: true` means the command line is
 * not in `[chat].allowed_commands` / `allowed_command_globs`.
 *
 * @example Value
 * ```ts
 * import type { UserCommandOutcome } from "@relavium/session/tools";
 * const o: UserCommandOutcome = { kind: "denied", allowlist: true, message: "the command is not in the allowlist" };
 * ```
 */
export type UserCommandOutcome =
  | { kind: "ran"; exitCode: number; stdout: string; stderr: string }
  | { kind: "denied"; allowlist: boolean; message: string }
  | { kind: "failed"; message: string }
  | { kind: "cancelled" };

/**
 * The engine's tool seam.
 *
 * @example A registry with no tools
 * ```ts
 * import type { ToolRegistry } from "@relavium/session/tools";
 * const none: ToolRegistry = {
 *   advertise: () => [],
 *   dispatch: (call) => Promise.resolve({
 *     kind: "feedback", toolId: "unknown_tool", displayInput: {}, summary: "unknown tool",
 *     modelResult: `Unknown tool: ${call.name}`, outcome: "error", code: "tool_failed",
 *   }),
 * };
 * ```
 */
export interface ToolRegistry {
  /** Definitions the model may see, given the grant and the turn policy. */
  advertise(
    granted: readonly string[],
    policy: TurnPolicy | undefined,
  ): ToolDef[];
  /** Runs one call through the whole pipeline; never throws. */
  dispatch(call: ToolCall, ctx: ToolDispatchContext): Promise<ToolOutcome>;
  /**
   * Optional: runs a user's `!` command through the `run_command` policy
   * (config-only values merged, the allowlist checked before approval, a
   * non-cacheable approval through `ctx.policy`, Deno permissions,
   * `ctx.admit()`, no shell). The grant is one-off: the model never gets
   * `run_command` from it, and an answer is never cached. Never throws.
   * Absent ⇒ `AgentSession.runUserCommand` answers `failed`.
   */
  runUserCommand?(
    request: UserCommandRequest,
    ctx: UserCommandContext,
  ): Promise<UserCommandOutcome>;
}
