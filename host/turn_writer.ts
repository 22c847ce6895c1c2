/**
 * The store's turn writer: observes stamped events and persists each turn
 * at its terminal. The first failed write
 * latches it.
 *
 * @module
 */
import type { SessionEvent, ToolHistoryEntry } from "../schema/event.ts";
import type {
  BoundaryMarker,
  CostEntry,
  SessionStore,
  ToolRound,
} from "../store/store.ts";

/**
 * Options of {@linkcode createTurnWriter}.
 */
export interface TurnWriterOptions {
  /** Where turns go. */
  store: SessionStore;
  /** The session's id. */
  sessionId: string;
  /** The just-completed exchange, read when a turn completes. */
  exchange(): { userText: string; assistantText: string } | undefined;
  /** Called once, with the error, when a write fails. */
  onLatch(error: unknown): void;
}

/**
 * A turn writer.
 */
export interface TurnWriter {
  /** Feeds one stamped event, in order. */
  observe(event: SessionEvent): void;
  /** Whether a write has failed. */
  readonly latched: boolean;
}

function groupRounds(
  history: readonly ToolHistoryEntry[],
  rounds: readonly string[][],
): ToolRound[] {
  const byId = new Map(history.map((h) => [h.call.id, h]));
  const out: ToolRound[] = [];
  for (const ids of rounds) {
    const round: ToolRound = { calls: [], results: [] };
    for (const id of ids) {
      const h = byId.get(id);
      if (h === undefined) continue;
      byId.delete(id);
      round.calls.push(h.call);
      round.results.push(h.result);
    }
    if (round.calls.length > 0) out.push(round);
  }
  if (byId.size > 0) {
    const rest = [...byId.values()];
    out.push({
      calls: rest.map((h) => h.call),
      results: rest.map((h) => h.result),
    });
  }
  return out;
}

/**
 * Creates the writer. Costs are buffered during a turn and written at its
 * terminal: with the rows on success, alone on error, abort or cancel.
 * Tool rounds are read off the event order (a round's `cost:updated`
 * precedes its calls) and filled from `toolHistory`.
 *
 * Compaction moments are written when they close: `session:compacted`
 * appends the boundary marker with the summariser's usage and spend (the
 * `cost:updated` events since `session:compacting`) in one transaction;
 * `session:compaction_failed` records that spend alone. `session:trimmed`
 * appends a trim marker. A store without `appendMarker` latches the
 * writer at the first marker.
 *
 * @param options Store, session id, exchange reader, latch callback.
 * @returns The writer.
 */
export function createTurnWriter(options: TurnWriterOptions): TurnWriter {
  const { store, sessionId } = options;
  let costs: CostEntry[] = [];
  let rounds: string[][] = [];
  let current: string[] = [];
  let latched = false;
  let moment: number | undefined;

  function closeRound(): void {
    if (current.length > 0) rounds.push(current);
    current = [];
  }
  function reset(): void {
    costs = [];
    rounds = [];
    current = [];
    moment = undefined;
  }
  function momentCosts(): CostEntry[] {
    const from = moment ?? costs.length;
    moment = undefined;
    return costs.splice(from);
  }
  function marker(marker: BoundaryMarker): void {
    write(() => {
      if (store.appendMarker === undefined) {
        throw new TypeError(
          "Cannot persist a boundary: the session store has no appendMarker",
        );
      }
      store.appendMarker(sessionId, marker);
    });
  }
  function write(fn: () => void): void {
    if (latched) return;
    try {
      fn();
    } catch (e) {
      latched = true;
      options.onLatch(e);
    }
  }

  return {
    get latched(): boolean {
      return latched;
    },
    observe(event: SessionEvent): void {
      switch (event.type) {
        case "cost:updated":
          closeRound();
          costs.push({
            model: event.model,
            inputTokens: event.inputTokens,
            outputTokens: event.outputTokens,
            costMicrocents: event.costMicrocents,
            priced: event.priced,
          });
          return;
        case "agent:tool_call":
          current.push(event.toolCallId);
          return;
        case "session:compacting":
          moment = costs.length;
          return;
        case "session:compacted": {
          const spent = momentCosts();
          marker({
            summary: event.summary,
            keptTurnCount: event.keptTurnCount,
            tokensUsed: { ...event.tokensUsed },
            costs: spent,
          });
          return;
        }
        case "session:compaction_failed": {
          const spent = momentCosts();
          if (spent.length > 0) {
            write(() => store.recordCosts(sessionId, spent));
          }
          return;
        }
        case "session:trimmed":
          marker({ keptTurnCount: event.keptTurnCount });
          return;
        case "session:turn_completed": {
          closeRound();
          const turnCosts = costs;
          const turnRounds = rounds;
          reset();
          if (event.stopReason === "error" || event.stopReason === "aborted") {
            if (turnCosts.length > 0) {
              write(() => store.recordCosts(sessionId, turnCosts));
            }
            return;
          }
          write(() => {
            const exchange = options.exchange();
            if (exchange === undefined) {
              throw new Error("No completed exchange to persist");
            }
            store.commitTurn(sessionId, {
              userText: exchange.userText,
              rounds: groupRounds(event.toolHistory ?? [], turnRounds),
              finalText: exchange.assistantText,
              ...(event.tokensUsed.model === undefined
                ? {}
                : { modelId: event.tokensUsed.model }),
              tokensUsed: {
                input: event.tokensUsed.input,
                output: event.tokensUsed.output,
              },
              costs: turnCosts,
            });
          });
          return;
        }
        case "session:cancelled": {
          const left = costs;
          reset();
          write(() => {
            if (left.length > 0) store.recordCosts(sessionId, left);
            store.setStatus(sessionId, "ended");
          });
          return;
        }
        default:
          return;
      }
    },
  };
}
