/**
 * What the memory policy allows and the result shapes of
 * `compact()` and `trimHistory()`. Pure.
 *
 * @module
 */
import type { AgentMemory } from "../schema/agent.ts";
import type { CompactionReason } from "../schema/event.ts";
import type { PlanEntry } from "../llm/chain.ts";
import type { Result } from "../schema/result.ts";
import type { TurnSpan } from "../schema/resume.ts";
import { summariserBound } from "./window/measure.ts";
import type { CompactWithOutcome } from "./window/window.ts";

/**
 * A refusal by the memory policy; the message is fixed and secret-free.
 */
export interface MemoryPolicyRefusal {
  /** Discriminator. */
  kind: "policy_refused";
  /** The policy that refused. */
  memory: "none" | "window";
  /** Fixed, user-facing explanation. */
  message: string;
}

/**
 * The outcome of a manual `compact()`.
 */
export type CompactionResult =
  | {
    kind: "compacted";
    reason: CompactionReason;
    summary: string;
    keptMessageCount: number;
    keptTurnCount: number;
    tokensBefore: number;
    tokensAfter: number;
    summaryTokens: { input: number; output: number };
  }
  | { kind: "nothing_to_compact" }
  | { kind: "failed"; message: string }
  | { kind: "cancelled" }
  | { kind: "budget_refused"; message: string; momentOpened: boolean }
  | MemoryPolicyRefusal;

/**
 * The outcome of `trimHistory(n)`.
 */
export type TrimResult =
  | {
    kind: "trimmed";
    keptMessageCount: number;
    droppedMessageCount: number;
    keptTurnCount: number;
  }
  | { kind: "nothing_to_trim"; messageCount: number }
  | MemoryPolicyRefusal;

const COMPACT_REFUSED: Record<"none" | "window", string> = {
  none:
    "Compaction is not available: this agent's memory is none, so requests carry only the pending message",
  window:
    "Compaction is not available: this agent's memory is a fixed window of recent turns",
};

const TRIM_REFUSED =
  "Trimming is not available: this agent's memory is none, so requests carry only the pending message";

/**
 * Why `compact()` is refused under a memory policy.
 *
 * @param memory The authored policy (`undefined` = omitted).
 * @returns The refusal, or `undefined` when compaction is allowed.
 */
export function compactionRefusalFor(
  memory: AgentMemory | undefined,
): MemoryPolicyRefusal | undefined {
  if (memory?.type !== "none" && memory?.type !== "window") return undefined;
  return {
    kind: "policy_refused",
    memory: memory.type,
    message: COMPACT_REFUSED[memory.type],
  };
}

/**
 * Why `trimHistory()` is refused under a memory policy.
 *
 * @param memory The authored policy (`undefined` = omitted).
 * @returns The refusal, or `undefined` when trimming is allowed.
 */
export function trimRefusalFor(
  memory: AgentMemory | undefined,
): MemoryPolicyRefusal | undefined {
  return memory?.type === "none"
    ? { kind: "policy_refused", memory: "none", message: TRIM_REFUSED }
    : undefined;
}

/**
 * Whether automatic compaction may run: `summary` always, omitted iff
 * `autoCompact !== false`, `none`/`window` never.
 *
 * @param memory The authored policy.
 * @param autoCompact `SessionDeps.autoCompact`.
 * @returns `true` when permitted.
 */
export function automaticCompactionFor(
  memory: AgentMemory | undefined,
  autoCompact: boolean | undefined,
): boolean {
  if (memory === undefined) return autoCompact !== false;
  return memory.type === "summary";
}

/**
 * Maps the primitive's outcome to what a manual `compact()` returns.
 *
 * @param out The outcome (`skipped` when no plan entry can stream).
 * @returns The manual result.
 */
export function toCompactionResult(
  out: CompactWithOutcome,
): CompactionResult {
  switch (out.kind) {
    case "compacted":
      return {
        kind: "compacted",
        reason: "manual",
        summary: out.summary,
        keptMessageCount: out.keptMessageCount,
        keptTurnCount: out.keptTurnCount,
        tokensBefore: out.tokensBefore,
        tokensAfter: out.tokensAfter,
        summaryTokens: { ...out.usage },
      };
    case "budget_refused":
      return {
        kind: "budget_refused",
        message: out.error.message,
        momentOpened: out.momentOpened,
      };
    case "failed":
      return { kind: "failed", message: out.error.message };
    case "aborted":
      return { kind: "cancelled" };
    case "skipped":
      return { kind: "failed", message: NO_STREAMING };
    case "nothing_to_compact":
      return { kind: "nothing_to_compact" };
  }
}

/**
 * The failure message when no plan entry can run a summariser pass.
 */
export const NO_STREAMING: string =
  "Cannot compact: no model in the plan can stream";

/**
 * The checks of a manual `compact()` before anything runs: the memory
 * policy, something to fold (a completed turn after the first), a plan,
 * and a plan entry that can stream.
 *
 * @param refusal The memory policy's refusal, if any.
 * @param spans The completed spans of the working transcript.
 * @param plan Resolves the plan (only when the earlier checks pass).
 * @returns The result to return at once, or `go` with the plan.
 */
export function manualCompactionCheck(
  refusal: MemoryPolicyRefusal | undefined,
  spans: readonly TurnSpan[],
  plan: () => Result<PlanEntry[], { message: string }>,
): CompactionResult | { kind: "go"; plan: PlanEntry[] } {
  if (refusal !== undefined) return refusal;
  const latest = spans[spans.length - 1];
  if (latest === undefined || latest.start === 0) {
    return { kind: "nothing_to_compact" };
  }
  const resolved = plan();
  if (!resolved.ok) return { kind: "failed", message: resolved.error.message };
  if (summariserBound(resolved.value, true) === undefined) {
    return { kind: "failed", message: NO_STREAMING };
  }
  return { kind: "go", plan: resolved.value };
}
