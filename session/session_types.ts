/**
 * The public shapes of `AgentSession` and the checks of its
 * context-management deps.
 *
 * @module
 */
import type { Agent } from "../schema/agent.ts";
import type { SessionContext } from "../schema/context.ts";
import { checkBudgetPolicy } from "./budget.ts";
import type { SessionDeps } from "./deps.ts";
import { checkCompactThreshold } from "./measure.ts";

/** Default hard cap of provider-engaged turns (session.md §12). */
export const DEFAULT_MAX_TURNS = 50;

/**
 * Engine states (session.md §2).
 *
 * @example Value
 * ```ts
 * import type { SessionState } from "@relavium/session/session";
 * const s: SessionState = "idle";
 * ```
 */
export type SessionState = "created" | "idle" | "running" | "cancelled";

/**
 * Construction parameters.
 *
 * @example Shape
 * ```ts
 * import type { AgentSessionParams } from "@relavium/session/session";
 * type K = keyof AgentSessionParams;
 * ```
 */
export interface AgentSessionParams {
  /** The durable session id (minted by the host). */
  sessionId: string;
  /** The kebab agent id; stamped as `nodeId`. */
  agentRef: string;
  /** The agent as authored (or as frozen in a snapshot). */
  agent: Agent;
  /** Where the session works. */
  context: SessionContext;
  /** Injected capabilities. */
  deps: SessionDeps;
}

/**
 * A completed exchange as the working transcript holds it.
 *
 * @example Value
 * ```ts
 * import type { CompletedExchange } from "@relavium/session/session";
 * const e: CompletedExchange = { userText: "hi", assistantText: "" };
 * ```
 */
export interface CompletedExchange {
  /** The user's text. */
  userText: string;
  /** The final assistant text (`""` for an empty final reply). */
  assistantText: string;
}

/**
 * Checks the context-management deps at construction.
 *
 * @param deps The session's deps.
 * @returns The effective `compactThreshold`.
 * @throws {TypeError} On `compactThreshold` outside (0, 1], a non-positive
 * or fractional `maxMessages`/`maxTokensEstimate`, or an invalid `budget`.
 *
 * @example Refuse a threshold of 0
 * ```ts
 * import { checkContextDeps } from "./session_types.ts";
 * import assert from "node:assert/strict";
 * assert.throws(() => checkContextDeps({ compactThreshold: 0 }), TypeError);
 * assert.equal(checkContextDeps({ maxMessages: 20 }), 0.8);
 * ```
 */
export function checkContextDeps(
  deps: Pick<
    SessionDeps,
    "compactThreshold" | "maxMessages" | "maxTokensEstimate" | "budget"
  >,
): number {
  const threshold = checkCompactThreshold(deps.compactThreshold);
  for (const key of ["maxMessages", "maxTokensEstimate"] as const) {
    const v = deps[key];
    if (v !== undefined && (!Number.isSafeInteger(v) || v < 1)) {
      throw new TypeError(`Invalid ${key}: expected a positive integer`);
    }
  }
  checkBudgetPolicy(deps.budget);
  return threshold;
}
