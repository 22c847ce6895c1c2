/**
 * What the engine hands its host when a piece of work ends: the finished
 * turn as a value, never an order of events to decode.
 *
 * @module
 */
import type { BoundaryMarker, CostEntry, TurnCommit } from "../schema/turn.ts";

/**
 * One finished piece of work, discriminated on `kind`:
 *
 * - `turn`: a completed turn (user text, tool rounds, final text, usage,
 *   model, per-model spend); the host commits it in one transaction.
 * - `spend`: what a turn that failed or was aborted spent, or a failed
 *   compaction's summariser spend; nothing enters the transcript.
 * - `boundary`: a compaction (summary, usage and spend) or a trim.
 * - `ended`: the session was cancelled; `costs` is what the interrupted
 *   work had spent.
 *
 * `turnsUsed` is the session's count of provider-engaged turns over its
 * whole life (what the hard cap counts) after this work.
 */
export type FinishedWork =
  | { kind: "turn"; turn: TurnCommit; turnsUsed: number }
  | { kind: "spend"; costs: CostEntry[]; turnsUsed: number }
  | { kind: "boundary"; marker: BoundaryMarker; turnsUsed: number }
  | { kind: "ended"; costs: CostEntry[]; turnsUsed: number };
