/** Test clocks and id sources: deterministic, no wall clock. */
import type { Clock, IdSource } from "../../session/deps.ts";

/** A clock that starts at `start` and advances `step` ms per read. */
export function steppingClock(start = Date.UTC(2026, 0, 1), step = 1): Clock {
  let t = start;
  return {
    now(): number {
      const v = t;
      t += step;
      return v;
    },
  };
}

/** A clock frozen at `at`. */
export function fixedClock(at = Date.UTC(2026, 0, 1)): Clock {
  return { now: () => at };
}

/** Ids `<prefix>-0`, `<prefix>-1`, … */
export function sequentialIds(prefix = "id"): IdSource {
  let n = 0;
  return () => `${prefix}-${n++}`;
}
