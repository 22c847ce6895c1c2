/**
 * The tool seam the engine dispatches through. The session knows only
 * these types; the pipeline, built-ins, jail and permission layer live
 * behind {@linkcode ToolRegistry}.
 *
 * @module
 */
import type { ToolDef } from "../llm/provider.ts";
import type {
  ErrorCode,
  GovernedAction,
  SessionError,
} from "../schema/event.ts";

/** What a person is asked to approve. Previews are secret-free. */
export interface ApprovalRequest {
  /** The registry id of the tool asking. */
  toolId: string;
  /** The governed action class. */
  action: GovernedAction;
  /**
   * Secret-free preview: `{path}` (a write's canonical target relative to
   * its root), `{command}` (the whole command line, never cut), `{host}`
   * or `{}`.
   */
  preview: { path?: string; command?: string; host?: string };
  /** `false` for blank previews and protected-path prompts. */
  cacheable: boolean;
  /**
   * `true` for a write whose requested or resolved target is a protected
   * path: never auto-approved.
   */
  protectedPath: boolean;
  /** The path as the model requested it, when it differs from the preview. */
  requestedPath?: string;
  /**
   * A write's new content (secret-checked like every argument), whether
   * it appends, and the regular file it replaces (its size; its text when
   * small UTF-8), for a diff or preview. Never in an event.
   */
  write?: {
    content: string;
    append: boolean;
    existing?: { bytes: number; text?: string };
  };
  /** An egress call's whole URL (control characters as spaces). */
  url?: string;
  /** Aborts with the turn; an answer after abort still cancels. */
  signal: AbortSignal;
}

/**
 * The per-turn policy a host sets with `setTurnPolicy`: a best-effort
 * advertise filter and the authoritative confirm hook. Without a verdict
 * and without `confirm`, a governed action is denied; so is every
 * governed action when no policy is set at all.
 */
export interface TurnPolicy {
  /** Best-effort filter of advertised tool ids (`false` hides a tool). */
  advertise?(toolId: string): boolean;
  /**
   * Optional: decides a governed action without a person (mode rules, the
   * `always` cache): approve, or deny with a secret-free reason (for
   * example "not allowed in ask mode"); `noApprover: true` marks a denial
   * because nobody can be asked, refused `no_approval_hook` like a
   * policy without `confirm`. `undefined` ⇒ ask through `confirm`,
   * announced by `agent:approval_requested`; a verdict ⇒ no prompt and
   * no event.
   */
  decide?(
    request: ApprovalRequest,
  ):
    | { approve: true }
    | { approve: false; reason: string; noApprover?: boolean }
    | undefined;
  /**
   * Asks a person; authoritative. Absent ⇒ governed actions are denied.
   * `once` approves this call, `always` this tool for the rest of the
   * mode (when the request is cacheable), `reject` denies.
   */
  confirm?(request: ApprovalRequest): Promise<"once" | "always" | "reject">;
  /**
   * Optional: text appended (after a blank line) to the system prompt of
   * the turns run under this policy, e.g. the planning instruction of
   * `plan` mode.
   */
  instruction?: string;
}

/** A decision a turn policy takes without asking anyone. */
export type PolicyVerdict = Exclude<
  ReturnType<NonNullable<TurnPolicy["decide"]>>,
  undefined
>;

/** A person's answer to an {@linkcode ApprovalRequest}. */
export type ApprovalDecision = Awaited<
  ReturnType<NonNullable<TurnPolicy["confirm"]>>
>;

/** One model-issued call, as the engine hands it to the registry. */
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

/** Decision of a pre-egress check. */
export type EgressDecision = { allow: true } | {
  allow: false;
  error: SessionError;
};

/** What a dispatch may use besides the call. */
export interface ToolDispatchContext {
  /** Aborts the call (turn abort or session cancel). */
  signal: AbortSignal;
  /** The session's effective grant (agent tools ∩ session narrowing). */
  granted: readonly string[];
  /**
   * The turn policy snapshotted at turn start. Absent ⇒ `ask` with no
   * approver: every governed action is refused `no_approval_hook`.
   */
  policy?: TurnPolicy;
  /** Whether a person can answer prompts (false: CI, `--json`, pipes). */
  interactive: boolean;
  /** Publishes `agent:approval_requested` (the engine adds `nodeId`). */
  emitApproval(
    request: Pick<ApprovalRequest, "toolId" | "action" | "preview">,
  ): void;
  /** Checked right before the host effect (failure latch, budget). */
  admit(): EgressDecision;
}

/**
 * The result of one dispatch, with the resolved registry id (or
 * `unknown_tool`), the sanitised input for `agent:tool_call` (config-only
 * keys and secrets removed) and a bounded summary (≤ 500 chars) for
 * `agent:tool_result`. `ok` and `feedback` go back to the model as a
 * `tool_result` (bounded, untrusted); `fatal` ends the turn.
 */
export type ToolOutcome =
  & { toolId: string; displayInput: Record<string, unknown>; summary: string }
  & (
    | { kind: "ok"; modelResult: string }
    | {
      kind: "feedback";
      modelResult: string;
      outcome: "error" | "denied";
      code: ErrorCode;
    }
    | {
      kind: "fatal";
      outcome: "error" | "denied" | "cancelled";
      error: SessionError;
    }
  );

/**
 * The outcome of a user `!` command. A non-zero exit is still `ran`;
 * `denied` with `allowlist: true` means the command line is not in
 * `[chat].allowed_commands` / `allowed_command_globs`.
 */
export type UserCommandOutcome =
  | { kind: "ran"; exitCode: number; stdout: string; stderr: string }
  | { kind: "denied"; allowlist: boolean; message: string }
  | { kind: "failed"; message: string }
  | { kind: "cancelled" };

/** The engine's tool seam. */
export interface ToolRegistry {
  /** Definitions the model may see, given the grant and the turn policy. */
  advertise(
    granted: readonly string[],
    policy: TurnPolicy | undefined,
  ): ToolDef[];
  /** Runs one call through the whole pipeline; never throws. */
  dispatch(call: ToolCall, ctx: ToolDispatchContext): Promise<ToolOutcome>;
  /**
   * Optional: whether a tool is read-only (neither governed nor gated),
   * for the `plan` mode's advertise filter. Absent ⇒ only the built-in
   * readers count as read-only there.
   */
  isReadOnly?(toolId: string): boolean;
  /**
   * Optional: runs a user's `!` command (already tokenised: the program,
   * a name on the host PATH or a path, and its arguments, passed as-is
   * with no shell; the allowlist target is `[command, ...args].join(" ")`)
   * through the `run_command` policy: config-only values merged, the
   * allowlist checked before approval, a non-cacheable approval through
   * `ctx.policy`, Deno permissions, `ctx.admit()`. The grant is one-off
   * (the user's, never the model's): the model never gets `run_command`
   * from it, and an answer is never cached. Never throws. Absent ⇒
   * `AgentSession.runUserCommand` answers `failed`.
   */
  runUserCommand?(
    request: { command: string; args: readonly string[] },
    ctx: Omit<ToolDispatchContext, "granted">,
  ): Promise<UserCommandOutcome>;
}

/** A user's `!` command: the program and its arguments. */
export type UserCommandRequest = Parameters<
  NonNullable<ToolRegistry["runUserCommand"]>
>[0];

/** What a user-command run may use: a dispatch context without the grant. */
export type UserCommandContext = Omit<ToolDispatchContext, "granted">;
