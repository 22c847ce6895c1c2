/**
 * The one redaction of secrets that leave a session as data: events,
 * stored rows, recordings and error texts, and the secret test the tool
 * pipeline refuses arguments by.
 *
 * A secret is a configured key (any value of at least 8 characters the
 * host names) or a string shaped like a provider key, per this table
 * (the match must also hold a digit, as every issued key does):
 *
 * | Issuer | Shape |
 * |---|---|
 * | Anthropic, OpenAI, DeepSeek, OpenRouter | `sk-` (`sk-ant-`, `sk-proj-`, `sk-or-v1-`, …) + 20 or more of `[A-Za-z0-9_-]` |
 * | Google (Gemini) | `AIza` + 30 or more of `[A-Za-z0-9_-]` |
 * | Groq | `gsk_` + 20 or more of `[A-Za-z0-9]` |
 * | xAI | `xai-` + 20 or more of `[A-Za-z0-9]` |
 * | Hugging Face | `hf_` + 30 or more of `[A-Za-z0-9]` |
 * | Perplexity | `pplx-` + 20 or more of `[A-Za-z0-9]` |
 *
 * @module
 */

import type { SessionEvent } from "../schema/event.ts";

/** What a redacted secret reads as. */
const REDACTED = "[redacted]";

/** Nesting deeper than this is kept as is (events and rows are shallow). */
const MAX_DEPTH = 32;

/** Configured values shorter than this are not secrets (ordinary text). */
const MIN_KEY_LENGTH = 8;

/**
 * The shapes of the module table, one alternative per row, in one pattern:
 * a text is scanned once, not once per shape. A match that runs into
 * another shape holds it whole (each row's characters are within `sk-`'s
 * and `AIza`'s), so either the longer match is redacted or neither is.
 */
const KEY_SHAPES =
  /\b(?:sk-[A-Za-z0-9_-]{20,}|AIza[A-Za-z0-9_-]{30,}|gsk_[A-Za-z0-9]{20,}|xai-[A-Za-z0-9]{20,}|hf_[A-Za-z0-9]{30,}|pplx-[A-Za-z0-9]{20,})/g;

/** Where a shape could start: a text without one has nothing to scan. */
const SHAPE_START = /\b(?:sk-|AIza|gsk_|xai-|hf_|pplx-)/;

/** The shortest text a shape matches (`sk-` and 20 more). */
const SHORTEST_SHAPE = 23;

/** A secret test and its redaction, over one set of configured keys. */
export interface SecretScreen {
  /** Whether the text is or contains a secret. */
  isSecret: (value: string) => boolean;
  /** The text with every secret replaced by `[redacted]`. */
  redact(text: string): string;
}

/**
 * The screen of the configured keys plus the key shapes of the table.
 *
 * @param keys Configured key values (shorter than 8 characters: ignored).
 * @returns The screen.
 */
export function createSecretScreen(keys: readonly string[]): SecretScreen {
  // Longest first: a key that contains another is replaced whole.
  const known = [...new Set(keys)].filter((k) => k.length >= MIN_KEY_LENGTH)
    .sort((a, b) => b.length - a.length);
  // A text shorter than every key and every shape holds none (most
  // strings of an event: its type, model, node id, a short delta).
  const shortest = Math.min(SHORTEST_SHAPE, ...known.map((k) => k.length));
  function redact(text: string): string {
    if (text.length < shortest) return text;
    let out = text;
    for (const k of known) {
      if (out.includes(k)) out = out.replaceAll(k, REDACTED);
    }
    if (!SHAPE_START.test(out)) return out;
    return out.replace(KEY_SHAPES, (m) => /\d/.test(m) ? REDACTED : m);
  }
  return { isSecret: (value) => redact(value) !== value, redact };
}

/**
 * A copy of `value` with `redact` applied to every string in it (object
 * keys kept); arrays and plain objects are copied, anything else is
 * returned as is. Depth-bounded: deeper values are kept unchanged.
 *
 * @param value Any JSON-like value (an event, a stored turn).
 * @param redact The redaction.
 * @returns The redacted copy.
 */
export function redactStrings<T>(
  value: T,
  redact: (text: string) => string,
): T {
  return redactWalk(value, redact, 0) as T;
}

// Module-level (no closure per call) and without entry pairs: every event
// and stored turn passes through it.
function redactWalk(
  v: unknown,
  redact: (text: string) => string,
  depth: number,
): unknown {
  if (typeof v === "string") return redact(v);
  if (typeof v !== "object" || v === null || depth > MAX_DEPTH) return v;
  if (Array.isArray(v)) return v.map((x) => redactWalk(x, redact, depth + 1));
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) {
    out[k] = redactWalk((v as Record<string, unknown>)[k], redact, depth + 1);
  }
  return out;
}

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
