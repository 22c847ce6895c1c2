/**
 * The one redaction of secrets that leave a session as data: events,
 * stored rows, recordings and error texts, and the secret test the tool
 * pipeline refuses arguments by. The screen itself (configured keys and
 * key shapes) is `llm/secret_screen.ts`; this adds the streaming
 * redaction of deltas and events.
 *
 * @module
 */

import type { SessionEventDraft } from "../schema/event.ts";
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

// The public markers that open a key shape: the only text a bounded wait
// may release while it could still begin a key (they are the same for
// every key of a vendor, so they reveal nothing).
const MARKERS = ["sk-", "AIza", "gsk_", "xai-", "hf_", "pplx-"] as const;

/** The longest start of `text` that is a start of a public marker. */
function markerStart(text: string): number {
  let best = 0;
  for (const marker of MARKERS) {
    let n = 0;
    while (n < marker.length && n < text.length && marker[n] === text[n]) n++;
    if (n > best) best = n;
  }
  return best;
}

/** How many leading characters `a` and `b` share. */
function common(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/**
 * Redacts a stream of text deltas, so that a key the model streams split
 * across deltas is redacted too: each delta is published at once except
 * its shortest tail that could still begin a configured key or a key
 * shape; that tail is carried into the next delta (or flushed at the end
 * of the stream). The deltas joined equal the redacted whole.
 *
 * A bounded wait may release the tail early ({@linkcode DeltaRedactor.release}):
 * only its public part, the start of a vendor's marker (`sk-`, `AIza`, …),
 * goes out; key material stays carried. The released marker is kept as
 * context, so a key that continues it in a later delta is still found and
 * redacted: the stream then reads the marker, then the redaction.
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
   * The bounded wait for the next delta passed.
   *
   * @returns The public part of the carried tail to publish now (possibly
   *   empty); the rest stays carried.
   */
  release(): string;
  /**
   * Ends the stream.
   *
   * @returns The carried rest, redacted.
   */
  flush(): string;
  /** Whether a tail is carried. */
  readonly holding: boolean;
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
  // `context`: published text a key in progress may have begun in (a
  // released marker); `carry`: redacted text not published yet.
  let context = "";
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
  /** Redacts `context + carry + text`: the part not published yet. */
  function unpublished(text: string): { whole: string; fresh: string } {
    const whole = redact(context + carry + text);
    // A key that began in the published context is redacted from where the
    // published text and the redacted whole part.
    return { whole, fresh: whole.slice(common(whole, context)) };
  }
  return {
    push(text: string): string {
      const { whole, fresh } = unpublished(text);
      const hold = held(whole);
      const kept = Math.min(hold, fresh.length);
      carry = fresh.slice(fresh.length - kept);
      // The key in progress began in the context: that part stays context.
      context = hold > kept
        ? whole.slice(whole.length - hold, -kept || undefined)
        : "";
      return fresh.slice(0, fresh.length - kept);
    },
    release(): string {
      if (context !== "" || carry === "") return "";
      const n = markerStart(carry);
      if (n === 0) return "";
      const out = carry.slice(0, n);
      carry = carry.slice(n);
      context = out;
      return out;
    },
    flush(): string {
      const { fresh } = unpublished("");
      context = "";
      carry = "";
      return fresh;
    },
    get holding(): boolean {
      return carry !== "";
    },
  };
}

type DeltaDraft = Extract<
  SessionEventDraft,
  { type: "agent:token" | "agent:reasoning" }
>;

function deltaOf(draft: DeltaDraft): string {
  return draft.type === "agent:token" ? draft.token : draft.text;
}

function withDelta(draft: DeltaDraft, text: string): DeltaDraft {
  return draft.type === "agent:token"
    ? { ...draft, token: text }
    : { ...draft, text };
}

/** Longest wait, in ms, before a carried tail's public part goes out. */
export const DELTA_HOLD_MS = 40;

/**
 * The redaction of a session's event drafts, before they are stamped:
 * every draft redacted, and streamed text (answer and reasoning deltas)
 * redacted across deltas, so a key split between two deltas is caught. A
 * delta goes out at once but for the shortest tail that could still begin
 * a key; that tail goes out with the next delta, before the next other
 * event (as a delta of its own), or, for its public part, after
 * {@linkcode DELTA_HOLD_MS} ms, whichever comes first. A delta with nothing
 * to publish yet is not emitted.
 *
 * @param keys Configured key values.
 * @param emit Receives the drafts to stamp and publish, in order.
 * @returns The sink for the session's drafts.
 */
export function createEventRedactor(
  keys: readonly string[],
  emit: (draft: SessionEventDraft) => void,
): (draft: SessionEventDraft) => void {
  const { redact } = createSecretScreen(keys);
  const deltas = createDeltaRedactor(keys);
  let last: DeltaDraft | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stopTimer = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
  const send = (text: string): void => {
    if (text !== "" && last !== undefined) emit(withDelta(last, text));
  };
  const flush = (): void => {
    stopTimer();
    if (last === undefined) return;
    send(deltas.flush());
    last = undefined;
  };
  const onWait = (): void => {
    timer = undefined;
    send(deltas.release());
  };
  return (draft) => {
    if (draft.type === "agent:token" || draft.type === "agent:reasoning") {
      if (last !== undefined && last.type !== draft.type) flush();
      stopTimer();
      last = redactStrings(withDelta(draft, ""), redact);
      send(deltas.push(deltaOf(draft)));
      if (deltas.holding) timer = setTimeout(onWait, DELTA_HOLD_MS);
      return;
    }
    flush();
    emit(redactStrings(draft, redact));
  };
}
