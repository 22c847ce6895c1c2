/**
 * `/cost` on an asynchronous store (Postgres): the session row, its
 * per-model spend and its usage coverage read first, then reported as
 * the synchronous stores' `/cost` reports them.
 *
 * @module
 */
import type { AsyncSessionStore, SessionStore } from "../../store/store.ts";
import {
  costReport,
  shownCosts,
  shownCoverage,
} from "../commands/cost_report.ts";

/**
 * The `/cost` report of a session.
 *
 * @param store The session's store.
 * @param sessionId The session.
 * @returns The report text.
 */
export async function asyncCostReport(
  store: SessionStore | AsyncSessionStore,
  sessionId: string,
): Promise<string> {
  const [loaded, costs, coverage] = await Promise.all([
    store.load(sessionId),
    store.costs?.(sessionId),
    store.coverage?.(sessionId),
  ]);
  return costReport(
    loaded?.record,
    shownCosts(costs),
    shownCoverage(
      { coverage: () => coverage ?? { pending: [], unrecordedMicrocents: 0 } },
      sessionId,
    ),
  );
}
