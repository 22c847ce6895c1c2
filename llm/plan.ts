/**
 * Plan resolution: the agent's primary model
 * plus its `fallback_chain`, each bound to a wired provider.
 *
 * @module
 */
import type { LlmProvider } from "./provider.ts";
import type { PlanEntry } from "./chain.ts";
import type { Result } from "../schema/result.ts";

/** Attempts the primary entry gets for retryable kinds (a fallback: its `max_attempts`). */
const PRIMARY_ATTEMPTS = 3;

/**
 * The routing fields of an agent, as authored (snake_case).
 */
export interface PlanAgent {
  /** Primary provider id. */
  provider: string;
  /** Primary model id. */
  model: string;
  /** Ordered fallback entries. */
  fallback_chain?: ReadonlyArray<{
    provider: string;
    model: string;
    max_attempts: number;
  }>;
}

/**
 * Why a plan could not be resolved: the first provider id that is not
 * wired.
 */
export interface PlanError {
  /** The provider id that did not resolve. */
  providerId: string;
  /** Secret-free, user-facing explanation. */
  message: string;
  /** The provider resolved but has no `stream` method (a wiring error). */
  noStream?: true;
}

function invalidAttempts(entry: { provider: string; model: string }): never {
  throw new TypeError(
    `Invalid fallback_chain entry ${entry.provider}/${entry.model}: max_attempts must be a positive integer`,
  );
}

/**
 * Resolves an agent's plan: the primary with 3 attempts, then each
 * fallback entry with its `max_attempts`. Callers memoise the result per
 * session instance, a failure included.
 *
 * @param agent The agent's routing fields.
 * @param resolveProvider Provider by id; `undefined` = not wired.
 * @returns The entries in order, or the first unwired provider.
 * @throws {TypeError} When a fallback entry's `max_attempts` is not a
 * positive integer (the agent schema requires one; never planned as an
 * entry that is never tried).
 */
export function resolvePlan(
  agent: PlanAgent,
  resolveProvider: (id: string) => LlmProvider | undefined,
): Result<PlanEntry[], PlanError> {
  const wanted: { provider: string; model: string; maxAttempts: number }[] = [
    {
      provider: agent.provider,
      model: agent.model,
      maxAttempts: PRIMARY_ATTEMPTS,
    },
    ...(agent.fallback_chain ?? []).map((f) => ({
      provider: f.provider,
      model: f.model,
      // The agent schema requires 1–10; anything else is refused here
      // rather than planned as an entry that is never tried.
      maxAttempts: Number.isSafeInteger(f.max_attempts) && f.max_attempts >= 1
        ? f.max_attempts
        : invalidAttempts(f),
    })),
  ];
  const entries: PlanEntry[] = [];
  for (const w of wanted) {
    const provider = resolveProvider(w.provider);
    if (provider === undefined) {
      return {
        ok: false,
        error: {
          providerId: w.provider,
          message: `Cannot resolve provider: ${w.provider} is not configured`,
        },
      };
    }
    if (typeof provider.stream !== "function") {
      return {
        ok: false,
        error: {
          providerId: w.provider,
          message: `Cannot use provider: ${w.provider} has no stream method`,
          noStream: true,
        },
      };
    }
    entries.push({ provider, model: w.model, maxAttempts: w.maxAttempts });
  }
  return { ok: true, value: entries };
}
