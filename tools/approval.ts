/**
 * Pipeline steps 4 (the `git_commit`-style gate) and 5 (approval of
 * governed actions through the turn policy). Any turn policy
 * activates the regime: a policy verdict decides without a prompt; else
 * `agent:approval_requested` is emitted and `confirm` asks a person. All
 * denials are fatal `tool_denied`.
 *
 * @module
 */
import type { GovernedAction } from "../schema/event.ts";
import { raceAbort } from "./_abort.ts";
import {
  cancelledOutcome,
  deniedOutcome,
  fatalOutcome,
  type OutcomeBase,
} from "./outcomes.ts";
import type {
  ApprovalDecision,
  ApprovalRequest,
  PolicyVerdict,
  ToolDispatchContext,
  ToolOutcome,
  TurnPolicy,
} from "./registry.ts";
import type { PolicyTarget } from "./tool.ts";

/**
 * What the gate of a gated tool (`git_commit`) is shown.
 */
export interface GateRequest {
  /** The gated tool. */
  toolId: string;
  /** Sanitised effective args (for `git_commit`: message and files). */
  details: Readonly<Record<string, unknown>>;
  /** Aborts with the turn. */
  signal: AbortSignal;
}

/**
 * Asks for an explicit per-call yes; never cached, in every mode.
 */
export type GateHook = (request: GateRequest) => Promise<boolean>;

const MAX_PREVIEW = 300;

function clip(text: string): string {
  // deno-lint-ignore no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f]/g, " ");
  return clean.length > MAX_PREVIEW ? `${clean.slice(0, MAX_PREVIEW)}…` : clean;
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return "";
  }
}

/**
 * The secret-free preview of a governed action: `{path}`, `{command}`,
 * `{host}` (never a full URL) or `{}`.
 */
export function approvalPreview(
  action: GovernedAction,
  target: PolicyTarget,
): ApprovalRequest["preview"] {
  switch (action) {
    case "fs_write":
      return target.path === undefined ? {} : { path: clip(target.path) };
    case "process":
      return target.command === undefined
        ? {}
        : { command: clip(target.command) };
    case "egress": {
      const host = target.url === undefined ? "" : hostOf(target.url);
      return host === "" ? {} : { host };
    }
    case "os":
      return {};
    default: {
      const never: never = action;
      return never;
    }
  }
}

/**
 * Step 5: `undefined` when approved, else the fatal outcome. `oneOff`
 * (a user's `!` command) makes the request non-cacheable: no `always`
 * answer is offered, and none recorded for the model applies.
 */
export async function approveGoverned(input: {
  base: OutcomeBase;
  action: GovernedAction;
  target: PolicyTarget;
  protectedPath: boolean;
  policy: TurnPolicy;
  ctx: Omit<ToolDispatchContext, "granted">;
  oneOff?: boolean;
}): Promise<ToolOutcome | undefined> {
  const { base, action, policy, ctx } = input;
  const preview = approvalPreview(action, input.target);
  const blank = !Object.values(preview).some((v) => v !== "");
  const request: ApprovalRequest = {
    toolId: base.toolId,
    action,
    preview,
    cacheable: !blank && !input.protectedPath && input.oneOff !== true,
    protectedPath: input.protectedPath,
    signal: ctx.signal,
  };
  let verdict: PolicyVerdict | undefined;
  try {
    verdict = policy.decide?.(request);
  } catch {
    return deniedOutcome(base, "approval_error", "the approval policy failed");
  }
  // A protected-path write always needs a person: no verdict approves it,
  // and without an interactive approver it is denied.
  if (input.protectedPath && verdict?.approve !== false) {
    if (!ctx.interactive) {
      return fatalOutcome(
        base,
        "tool_denied",
        "Tool call denied: a protected-path write needs interactive approval",
      );
    }
    verdict = undefined;
  }
  if (verdict !== undefined) {
    return verdict.approve ? undefined : fatalOutcome(
      base,
      "tool_denied",
      `Tool call denied: ${verdict.reason}`,
    );
  }
  if (policy.confirm === undefined) {
    return deniedOutcome(
      base,
      "no_approval_hook",
      "governed actions need an approval hook",
    );
  }
  ctx.emitApproval({ toolId: base.toolId, action, preview });
  let decision: ApprovalDecision | undefined;
  try {
    const raced = await raceAbort(
      Promise.resolve().then(() => policy.confirm?.(request)),
      ctx.signal,
    );
    if (raced.aborted) return cancelledOutcome(base);
    decision = raced.value;
  } catch {
    if (ctx.signal.aborted) return cancelledOutcome(base);
    return deniedOutcome(base, "approval_error", "the approval hook failed");
  }
  if (ctx.signal.aborted) return cancelledOutcome(base);
  if (decision === "once" || decision === "always") return undefined;
  if (decision === "reject") {
    return deniedOutcome(base, "user_rejected", "rejected by the user");
  }
  return deniedOutcome(
    base,
    "approval_error",
    "the approval hook gave no decision",
  );
}

/**
 * Step 4's gate: `undefined` when a person said yes for this call, else
 * the fatal outcome (`gate_required` when nobody can be asked or the turn
 * policy hides the tool).
 */
export async function passGate(input: {
  base: OutcomeBase;
  gate: GateHook | undefined;
  ctx: ToolDispatchContext;
}): Promise<ToolOutcome | undefined> {
  const { base, gate, ctx } = input;
  const hidden = ctx.policy?.advertise?.(base.toolId) === false;
  if (gate === undefined || !ctx.interactive || hidden) {
    return deniedOutcome(
      base,
      "gate_required",
      `${base.toolId} needs an explicit per-call approval, unavailable here`,
    );
  }
  try {
    const raced = await raceAbort(
      Promise.resolve().then(() =>
        gate({
          toolId: base.toolId,
          details: base.displayInput,
          signal: ctx.signal,
        })
      ),
      ctx.signal,
    );
    if (raced.aborted || ctx.signal.aborted) return cancelledOutcome(base);
    return raced.value === true
      ? undefined
      : deniedOutcome(base, "user_rejected", "rejected by the user");
  } catch {
    if (ctx.signal.aborted) return cancelledOutcome(base);
    return deniedOutcome(base, "approval_error", "the gate failed");
  }
}
