/**
 * The public shapes of `AgentSession` and the checks of its
 * context-management deps.
 *
 * @module
 */
import type { PlanEntry } from "../llm/chain.ts";
import type { Agent } from "../schema/agent.ts";
import type { SessionContext } from "../schema/context.ts";
import type { SessionError } from "../schema/event.ts";
import { renderIssues } from "../schema/issues.ts";
import type { Result } from "../schema/result.ts";
import type { TurnSpan, WorkingMessage } from "../schema/resume.ts";
import { checkBudgetPolicy } from "./budget.ts";
import type {
  SessionDeps,
  SessionEffects,
  SessionHooks,
  SessionSettings,
} from "./deps.ts";
import { CHAT_MODES, createModePolicy } from "../tools/modes.ts";
import type { TurnPolicy } from "../tools/registry.ts";
import { checkCompactThreshold } from "./window/measure.ts";
import { sessionError } from "./turn_errors.ts";
import type { TurnCoreResult } from "./turn_result.ts";

/** Default hard cap of provider-engaged turns. */
export const DEFAULT_MAX_TURNS: number = 50;

/**
 * Engine states.
 */
export type SessionState = "created" | "idle" | "running" | "cancelled";

/**
 * Construction parameters.
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
  /** The platform capabilities the session may use. */
  effects: SessionEffects;
  /** Its settings (copied at construction). */
  settings?: SessionSettings;
  /** The host's side: the event sink, the commit of finished work, checks. */
  hooks: SessionHooks;
}

/**
 * A copy of the working transcript, its spans and summary.
 */
export interface Transcript {
  /** Working messages (text only). */
  messages: WorkingMessage[];
  /** Completed turn spans. */
  spans: TurnSpan[];
  /** The compaction summary, if any. */
  summary?: string;
}

/**
 * A deep copy of a transcript (`summary` only when set).
 *
 * @param t The live transcript.
 * @returns The copy.
 */
export function copyTranscript(t: Transcript): Transcript {
  const out = {
    messages: structuredClone(t.messages),
    spans: structuredClone(t.spans),
  };
  return t.summary === undefined ? out : { ...out, summary: t.summary };
}

/**
 * Checks the context-management deps at construction.
 *
 * @param deps The session's deps.
 * @returns The effective `compactThreshold`.
 * @throws {TypeError} On `compactThreshold` outside (0, 1], a non-positive
 * or fractional `maxMessages`/`maxTokensEstimate`, or an invalid `budget`.
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

/**
 * The turn policy of the `mode` setting (nobody to ask), or `undefined`
 * when it is unset (`ask` with no approver: the pipeline refuses every
 * governed action).
 *
 * @param deps The session's `mode` and tools.
 * @returns The policy, or `undefined`.
 * @throws {TypeError} When `mode` is not a chat mode.
 */
export function modeSettingPolicy(
  deps: Pick<SessionDeps, "mode" | "tools">,
): TurnPolicy | undefined {
  const { mode, tools } = deps;
  if (mode === undefined) return undefined;
  if (!CHAT_MODES.some((m) => m.mode === mode)) {
    throw new TypeError(
      `Invalid mode: expected one of ${
        CHAT_MODES.map((m) => m.mode).join(", ")
      }`,
    );
  }
  return createModePolicy({
    mode,
    interactive: false,
    ...(tools?.isReadOnly === undefined
      ? {}
      : { isReadOnly: (id: string) => tools.isReadOnly?.(id) ?? false }),
  }).policy;
}

/**
 * The checks before a turn engages anything: the hard turn cap (absent or ≤ 0 ⇒ 50), then the memoised plan.
 *
 * @param turnCount Completed turns so far.
 * @param maxTurns `SessionDeps.maxTurns`.
 * @param plan The memoised plan resolution.
 * @returns The error the turn ends with, or `undefined` to proceed.
 */
export function turnGate(
  turnCount: number,
  maxTurns: number | undefined,
  plan: Result<PlanEntry[], { providerId: string; noStream?: true }>,
): SessionError | undefined {
  const cap = maxTurns !== undefined && maxTurns > 0
    ? maxTurns
    : DEFAULT_MAX_TURNS;
  if (turnCount >= cap) {
    return sessionError(
      "turn_limit",
      `session reached its hard cap of ${cap} turns`,
    );
  }
  if (!plan.ok) {
    return sessionError(
      "validation",
      plan.error.noStream === true
        ? `Provider "${plan.error.providerId}" cannot stream (it has no stream method)`
        : `Provider "${plan.error.providerId}" is not configured`,
    );
  }
  return undefined;
}

/**
 * The parsed value, or the construction error naming each key path.
 *
 * @param what Which parameter was parsed.
 * @param parsed Its parse result.
 * @returns The parsed value.
 * @throws {TypeError} When the parameter does not validate.
 */
export function checked<T>(
  what: "agent" | "context",
  parsed: Result<T, { issues: Parameters<typeof renderIssues>[1] }>,
): T {
  if (parsed.ok) return parsed.value;
  throw new TypeError(
    `Invalid ${what}:\n${renderIssues(what, parsed.error.issues)}`,
  );
}

/**
 * The result a turn refused before it engaged anything ends with.
 *
 * @param gate The gate's error (`undefined` ⇒ `internal`).
 * @returns The error result, with no usage.
 */
export function refusedTurn(gate: SessionError | undefined): TurnCoreResult {
  return {
    kind: "error",
    error: gate ?? sessionError("internal"),
    usage: { input: 0, output: 0 },
    engaged: false,
  };
}

/**
 * The agent's tools the session grants: all, or those the host narrowed to.
 *
 * @param agent The agent.
 * @param narrowing `SessionDeps.toolNarrowing`, if any.
 * @returns The granted tool ids.
 */
export function grantedTools(
  agent: Agent,
  narrowing: readonly string[] | undefined,
): string[] {
  return (agent.tools ?? []).filter((t) =>
    narrowing === undefined || narrowing.includes(t)
  );
}
