/**
 * The one redaction of secrets that leave a session as data: events,
 * stored rows, recordings and error texts, and the secret test the tool
 * pipeline refuses arguments by. The screen itself (configured keys and
 * key shapes) is `llm/secret_screen.ts`; this adds the streaming
 * redaction of deltas and events.
 *
 * @module
 */

import type { SessionEvent } from "../schema/event.ts";
import {
  createSecretScreen,
  MIN_KEY_LENGTH,
  redactStrings,
} from "../llm/secret_screen.ts";
export {
  createSecretScreen,
  redactStrings,
  type SecretScreen,
} from "../llm/secret_screen.ts";

// The start of a key shape, possibly cut: a marker (or its beginning) at a
// word boundary, then the characters a key may hold, up to the end.
const SHAPE_IN_PROGRESS =
  /\b(?:s|sk|sk-[A-Za-z0-9_-]*|A|AI|AIz|AIza[A-Za-z0-9_-]*|g|gs|gsk|gsk_[A-Za-z0-9]*|x|xa|xai|xai-[A-Za-z0-9]*|h|hf|hf_[A-Za-z0-9]*|p|pp|ppl|pplx|pplx-[A-Za-z0-9]*)$/;

/**
 * Redacts a stream of text deltas, so that a key the model streams split
 * across deltas is redacted too: each delta is published with the text
 * that can no longer be the start of a key, and the rest is carried into
 * the next delta (or flushed at the end of the stream). The deltas joined
 * equal the redacted whole.
 */
export interface DeltaRedactor {
  /**
   * Takes the next delta.
   *
   * @param text The delta as streamed.
   * @returns What to publish for it now (possibly empty).
   */
  push(text: string): string;
  /**
   * Ends the stream.
   *
   * @returns The carried rest, redacted.
   */
  flush(): string;
}

/**
 * A redactor of deltas over the configured keys and the key shapes.
 *
 * @param keys Configured key values (shorter than 8 characters: ignored).
 * @returns The redactor.
 */
export function createDeltaRedactor(keys: readonly string[]): DeltaRedactor {
  const { redact } = createSecretScreen(keys);
  const known = [...new Set(keys)].filter((k) => k.length >= MIN_KEY_LENGTH);
  let carry = "";
  function held(text: string): number {
    let hold = SHAPE_IN_PROGRESS.exec(text)?.[0].length ?? 0;
    for (const k of known) {
      for (let n = Math.min(k.length - 1, text.length); n > hold; n--) {
        if (k.startsWith(text.slice(text.length - n))) {
          hold = n;
          break;
        }
      }
    }
    return hold;
  }
  return {
    push(text: string): string {
      const joined = redact(carry + text);
      const hold = held(joined);
      carry = joined.slice(joined.length - hold);
      return joined.slice(0, joined.length - hold);
    },
    flush(): string {
      const rest = redact(carry);
      carry = "";
      return rest;
    },
  };
}

type DeltaEvent = Extract<
  SessionEvent,
  { type: "agent:token" | "agent:reasoning" }
>;

function deltaOf(event: DeltaEvent): string {
  return event.type === "agent:token" ? event.token : event.text;
}

function withDelta(event: DeltaEvent, text: string): DeltaEvent {
  return event.type === "agent:token"
    ? { ...event, token: text }
    : { ...event, text };
}

/**
 * The redaction of a session's event stream: every event redacted, and
 * streamed text (answer and reasoning deltas) redacted across deltas, so
 * a key split between two deltas is caught. Each delta event waits for
 * the next event and carries only the text that can no longer start a
 * key; any other event ends the run (the carried rest goes out first).
 *
 * @param keys Configured key values.
 * @param publish Receives the events to publish, in order.
 * @returns The sink to deliver each stamped event to.
 */
export function createEventRedactor(
  keys: readonly string[],
  publish: (event: SessionEvent) => void,
): (event: SessionEvent) => void {
  const { redact } = createSecretScreen(keys);
  const deltas = createDeltaRedactor(keys);
  let pending: DeltaEvent | undefined;
  const flush = (): void => {
    if (pending === undefined) return;
    publish(withDelta(pending, deltaOf(pending) + deltas.flush()));
    pending = undefined;
  };
  return (event) => {
    if (event.type === "agent:token" || event.type === "agent:reasoning") {
      if (pending !== undefined && pending.type !== event.type) flush();
      const safe = deltas.push(deltaOf(event));
      if (pending !== undefined) publish(pending);
      pending = redactStrings(withDelta(event, safe), redact);
      return;
    }
    flush();
    publish(redactStrings(event, redact));
  };
}
