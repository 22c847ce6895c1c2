/**
 * Builders of `ToolOutcome`s and the mapping: which failures
 * go back to the model and which end the turn. Messages never carry a
 * path or a secret.
 *
 * @module
 */
import type { ErrorCode } from "../schema/event.ts";
import type { ValidationIssue } from "../schema/issues.ts";
import { summarizeText } from "./bound.ts";
import type { ToolFailure } from "./failure.ts";
import type { ToolOutcome } from "./registry.ts";

/** Tool id and sanitised input shared by every outcome of one call. */
export interface OutcomeBase {
  /** Resolved id or `unknown_tool`. */
  toolId: string;
  /** Sanitised display input. */
  displayInput: Record<string, unknown>;
}

/** A successful outcome. */
export function okOutcome(
  base: OutcomeBase,
  modelResult: string,
  summary: string,
): ToolOutcome {
  return { kind: "ok", ...base, summary: summarizeText(summary), modelResult };
}

/** A correctable outcome fed back to the model as an error result. */
export function feedbackOutcome(
  base: OutcomeBase,
  code: ErrorCode,
  outcome: "error" | "denied",
  message: string,
): ToolOutcome {
  return {
    kind: "feedback",
    ...base,
    summary: summarizeText(message),
    modelResult: message,
    outcome,
    code,
  };
}

/** An outcome that ends the turn. */
export function fatalOutcome(
  base: OutcomeBase,
  code: ErrorCode,
  message: string,
): ToolOutcome {
  const outcome = code === "cancelled"
    ? "cancelled"
    : code === "tool_denied" || code === "budget_exceeded"
    ? "denied"
    : "error";
  return {
    kind: "fatal",
    ...base,
    summary: summarizeText(message),
    outcome,
    error: { code, message, retryable: false },
  };
}

/** A fatal denial naming its reason code (`not_granted`, `user_rejected`, …). */
export function deniedOutcome(
  base: OutcomeBase,
  reason: string,
  detail: string,
): ToolOutcome {
  return fatalOutcome(
    base,
    "tool_denied",
    `Tool call denied (${reason}): ${detail}`,
  );
}

/** The call was aborted. */
export function cancelledOutcome(base: OutcomeBase): ToolOutcome {
  return fatalOutcome(base, "cancelled", "Tool call cancelled");
}

/** Unknown tool: correctable (`tool_failed`). */
export function unknownToolOutcome(
  displayInput: Record<string, unknown>,
  name: string,
): ToolOutcome {
  // deno-lint-ignore no-control-regex
  const shown = name.replace(/[\u0000-\u001f\u007f]/g, "").slice(0, 64);
  return feedbackOutcome(
    { toolId: "unknown_tool", displayInput },
    "tool_failed",
    "error",
    `Unknown tool: ${JSON.stringify(shown)} is not an available tool`,
  );
}

/** Invalid args: correctable (`validation`). */
export function invalidArgsOutcome(
  base: OutcomeBase,
  issues: readonly ValidationIssue[],
): ToolOutcome {
  const detail = issues
    .slice(0, 10)
    .map((i) => (i.path === "" ? i.message : `${i.path}: ${i.message}`))
    .join("; ");
  return feedbackOutcome(
    base,
    "validation",
    "error",
    `Invalid arguments for ${base.toolId}: ${detail}`,
  );
}

/**
 * Maps a tool failure. What the model can fix goes back to it as an error
 * result, in every session: a failure where no effect started (a path
 * outside the scope, a missing file or parent folder, a directory where a
 * file belongs, a size limit). The turn ends on a denial (`refused`: a
 * floor, a symlink, a policy refusal), a missing capability, and a
 * failure after an effect may have partly happened (`effectStarted`).
 */
export function failureOutcome(
  base: OutcomeBase,
  failure: ToolFailure,
  options: { effectStarted: boolean },
): ToolOutcome {
  switch (failure.kind) {
    case "escape":
      return feedbackOutcome(
        base,
        "tool_denied",
        "denied",
        `Tool call denied: ${failure.message}`,
      );
    case "refused":
      return fatalOutcome(
        base,
        "tool_denied",
        `Tool call denied: ${failure.message}`,
      );
    case "unavailable":
      return fatalOutcome(
        base,
        "tool_unavailable",
        `Tool unavailable: ${base.toolId} ${failure.message}`,
      );
    case "failed": {
      const message = `${base.toolId} failed: ${failure.message}`;
      return options.effectStarted
        ? fatalOutcome(base, "tool_failed", message)
        : feedbackOutcome(base, "tool_failed", "error", message);
    }
    default: {
      const never: never = failure;
      return never;
    }
  }
}
