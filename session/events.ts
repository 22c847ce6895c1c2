/**
 * The one translation point from engine drafts to delivered events: stamps
 * `sessionId`, `timestamp` and a gap-free `sequenceNumber`.
 *
 * @module
 */
import type { SessionEvent, SessionEventDraft } from "../schema/event.ts";
import type { Clock } from "./deps.ts";

/**
 * Options of {@linkcode createEventStamper}.
 */
export interface EventStamperOptions {
  /** The session id stamped on every event. */
  sessionId: string;
  /** Source of the `timestamp`. */
  clock: Clock;
  /** Receives each stamped event, synchronously, in order. */
  deliver(event: SessionEvent): void;
  /** First `sequenceNumber`; a stream starts at 0 (also after resume). */
  firstSequence?: number;
}

/**
 * Creates the envelope-stamping sink a session emits into.
 *
 * @param options Session id, clock and the delivery callback.
 * @returns The `emit` function to pass as `SessionDeps.emit`.
 */
export function createEventStamper(
  options: EventStamperOptions,
): (draft: SessionEventDraft) => void {
  let next = options.firstSequence ?? 0;
  // The events of one turn mostly fall in one millisecond: its text is
  // formatted once.
  let lastMs = Number.NaN;
  let lastIso = "";
  return function emit(draft: SessionEventDraft): void {
    const ms = options.clock.now();
    if (ms !== lastMs) {
      lastIso = new Date(ms).toISOString();
      lastMs = ms;
    }
    const event = {
      ...draft,
      sessionId: options.sessionId,
      timestamp: lastIso,
      sequenceNumber: next++,
    } as SessionEvent;
    options.deliver(event);
  };
}
