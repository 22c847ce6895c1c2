/**
 * What a resume rebuilds from a stored session before it takes the lease:
 * the agent (the stored snapshot, or the caller's, reseated on another
 * model when asked) and the engine's resume state.
 *
 * @module
 */
import { type Agent, parseAgent } from "../schema/agent.ts";
import type { ResumeState } from "../schema/resume.ts";
import { err, ok, type Result } from "../schema/result.ts";
import { isValidResumeState } from "../session/resume_state.ts";
import { reconstructSessionState } from "../store/projection.ts";
import type { LoadedSession, SessionLease } from "../store/store.ts";
import { InvalidAgentError } from "./errors.ts";
import type { SessionRuntime } from "./runtime.ts";

/** What a resume reads from its options. */
interface PlanOptions {
  /** The stored session's id. */
  sessionId: string;
  /** Used only when the row has no agent snapshot. */
  agent?: Agent;
  /** Continue on another model. */
  reseat?: { model: string; provider?: string };
  /** The catalog names a reseat model's provider. */
  runtime: Pick<SessionRuntime, "catalog">;
}

/**
 * Why a session could not be resumed.
 */
export type ResumeError =
  | { kind: "not_found"; sessionId: string }
  | { kind: "no_agent"; sessionId: string }
  | { kind: "invalid_state"; sessionId: string }
  | { kind: "unknown_model"; sessionId: string; model: string }
  | {
    kind: "held";
    sessionId: string;
    /** The live lease of the writer that has the session open. */
    heldBy: SessionLease;
    /** Names the holder and how to go on. */
    message: string;
  };

/** The agent, validated. */
export function checkedAgent(agent: unknown): Agent {
  const parsed = parseAgent(agent, "agent");
  if (!parsed.ok) throw new InvalidAgentError(parsed.error.issues);
  return parsed.value;
}

function reseated(
  agent: Agent,
  reseat: { model: string; provider: string },
): Agent {
  const { fallback_chain: chain, ...rest } = agent;
  const kept = (chain ?? []).filter((e) =>
    !(e.model === reseat.model && e.provider === reseat.provider)
  );
  return {
    ...rest,
    model: reseat.model,
    provider: reseat.provider,
    ...(kept.length > 0 ? { fallback_chain: kept } : {}),
  };
}

/** What a resume rebuilds from the stored rows, before the lease. */
export interface ResumePlan {
  loaded: LoadedSession;
  agent: Agent;
  state: ResumeState;
}

/** The resume plan of a stored session, or why there is none. */
export function resumePlan(
  options: PlanOptions,
  loaded: LoadedSession | undefined,
  pending: number,
): Result<ResumePlan, Exclude<ResumeError, { kind: "held" }>> {
  const { sessionId } = options;
  if (loaded === undefined) return err({ kind: "not_found", sessionId });
  const snapshot = loaded.record.agentSnapshot ??
    (options.agent === undefined ? undefined : checkedAgent(options.agent));
  if (snapshot === undefined) return err({ kind: "no_agent", sessionId });
  let agent = snapshot;
  if (options.reseat !== undefined) {
    const { model } = options.reseat;
    const provider = options.reseat.provider ??
      options.runtime.catalog.lookup(model)?.provider;
    if (provider === undefined) {
      return err({ kind: "unknown_model", sessionId, model });
    }
    agent = reseated(snapshot, { model, provider });
  }
  const state = {
    ...reconstructSessionState(loaded.record, loaded.messages),
    ...(pending > 0 ? { unaccountedCalls: pending } : {}),
  };
  if (!isValidResumeState(state)) {
    return err({ kind: "invalid_state", sessionId });
  }
  return ok({ loaded, agent, state });
}
