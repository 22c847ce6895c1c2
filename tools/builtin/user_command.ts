/**
 * A user's `!` command through the same
 * `run_command` policy as a model's call, minus the grant: the user's
 * one-off grant never reaches the model.
 *
 * Order: config-only values merged → strict parse → the command
 * allowlist (before any approval, so no mode runs an unlisted command) →
 * approval through the turn policy, never cacheable → Deno permissions →
 * `ctx.admit()` (the session's effect identity and failure latch) → the
 * spawn (no shell, host PATH, environment from scratch, jailed `cwd`,
 * timeout and abort kill the process group). Never throws.
 *
 * @module
 */
import { approveGoverned } from "../approval.ts";
import { checkGuardrails } from "../guardrails.ts";
import type { OutcomeBase } from "../outcomes.ts";
import {
  firstMissingPermission,
  permissionFlag,
} from "../sandbox/permission_query.ts";
import { type PipelineConfig, runTool } from "../pipeline.ts";
import { governedAction, staticPermissions } from "../policy.ts";
import type {
  ToolOutcome,
  UserCommandContext,
  UserCommandOutcome,
  UserCommandRequest,
} from "../registry.ts";
import type { ProcessResult } from "./git_status.ts";

const CANCELLED: UserCommandOutcome = { kind: "cancelled" };

function failed(message: string): UserCommandOutcome {
  return { kind: "failed", message };
}

function fromDenial(outcome: ToolOutcome): UserCommandOutcome {
  if (outcome.kind !== "fatal") return failed("The command was not approved");
  if (outcome.outcome === "cancelled") return CANCELLED;
  return { kind: "denied", allowlist: false, message: outcome.error.message };
}

function isProcessResult(value: unknown): value is ProcessResult {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v["exitCode"] === "number" &&
    typeof v["stdout"] === "string" && typeof v["stderr"] === "string";
}

/**
 * Runs a user command through the `run_command` policy.
 *
 * @param config The registry's pipeline configuration.
 * @param request The tokenised command.
 * @param ctx Signal, turn policy, interactivity, approval event, admission.
 * @returns The outcome; never throws.
 */
export async function runUserCommandPipeline(
  config: PipelineConfig,
  request: UserCommandRequest,
  ctx: UserCommandContext,
): Promise<UserCommandOutcome> {
  try {
    return await steps(config, request, ctx);
  } catch {
    return ctx.signal.aborted
      ? CANCELLED
      : failed("The command failed unexpectedly");
  }
}

async function steps(
  config: PipelineConfig,
  request: UserCommandRequest,
  ctx: UserCommandContext,
): Promise<UserCommandOutcome> {
  const tool = config.tools.get("run_command");
  if (tool === undefined) {
    return failed("User commands need the run_command tool, not wired here");
  }
  if (ctx.signal.aborted) return CANCELLED;
  const raw: Record<string, unknown> = {
    command: request.command,
    args: [...request.args],
    ...config.toolConfig.get(tool.id),
  };
  const parsed = tool.parse(raw);
  if (!parsed.ok) {
    const detail = parsed.error.slice(0, 5)
      .map((i) => (i.path === "" ? i.message : `${i.path}: ${i.message}`))
      .join("; ");
    return failed(`Invalid command: ${detail}`);
  }
  const target = tool.policyTarget?.(parsed.value) ?? {};
  // 4: the allowlist, before any approval
  const refusal = checkGuardrails(tool.policy, target, config.guardrails);
  if (refusal !== undefined) {
    return {
      kind: "denied",
      allowlist: refusal.reason === "command_not_allowed",
      message: refusal.message,
    };
  }
  // 5: approval, one-off (never cached, `[a]` never offered)
  const action = governedAction(tool.policy);
  const base: OutcomeBase = {
    toolId: tool.id,
    displayInput: { command: target.command ?? request.command },
  };
  if (action !== undefined) {
    const denied = await approveGoverned({
      base,
      action,
      target,
      protectedPath: false,
      policy: ctx.policy,
      ctx,
      oneOff: true,
    });
    if (denied !== undefined) return fromDenial(denied);
  }
  // 6: Deno permissions (the program's own is checked at the spawn)
  const missing = firstMissingPermission(
    config.permissions,
    staticPermissions(tool.policy, config.plan),
  );
  if (missing !== undefined) {
    return failed(
      `Command unavailable: needs the Deno permission ${
        permissionFlag(missing)
      }`,
    );
  }
  // 7: admit, then the effect
  if (ctx.signal.aborted) return CANCELLED;
  const admission = ctx.admit();
  if (!admission.allow) return failed(admission.error.message);
  const result = await runTool(config, tool, parsed.value, ctx);
  if (result === "aborted" || ctx.signal.aborted) return CANCELLED;
  if (!result.ok) {
    const e = result.error;
    return failed(
      e.kind === "unavailable"
        ? `Command unavailable: ${e.message}`
        : `Command ${e.kind === "failed" ? "failed" : "refused"}: ${e.message}`,
    );
  }
  if (!isProcessResult(result.value)) {
    return failed("The command produced no result");
  }
  const { exitCode, stdout, stderr } = result.value;
  return { kind: "ran", exitCode, stdout, stderr };
}
