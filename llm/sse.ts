/**
 * An incremental Server-Sent Events parser, by the HTML standard's
 * "event stream interpretation": bytes in, dispatched events out, with a
 * bound on line length and event size.
 *
 * @module
 */
import type { Result } from "../schema/result.ts";

/**
 * One dispatched event.
 */
export interface SseEvent {
  /** The `event:` field; `"message"` when the event named none. */
  event: string;
  /** The `data:` lines joined by `\n`. */
  data: string;
  /** The last `id:` field seen, when any. */
  id?: string;
}

/**
 * Why the parser refused its input: a line or an event past its bound.
 * Adapters treat it as a `transport` error.
 */
export interface SseLimitError {
  /** Which bound was exceeded. */
  kind: "line_too_long" | "event_too_large";
  /** The bound, in UTF-16 code units. */
  limit: number;
}

/**
 * Bounds of {@linkcode createSseParser}, in UTF-16 code units of decoded
 * text.
 */
export interface SseParserOptions {
  /** Longest line (terminator excluded); default 1 MiB. */
  maxLineLength?: number;
  /** Largest event (`data` plus `event` name); default 8 MiB. */
  maxEventLength?: number;
}

/**
 * A stateful parser: feed it the body's bytes in order, then call `end`.
 * After an error it stays failed.
 */
export interface SseParser {
  /** Decodes `bytes` and returns the events they complete. */
  push(bytes: Uint8Array): Result<SseEvent[], SseLimitError>;
  /** Flushes the decoder at end of stream; an unterminated event is dropped. */
  end(): Result<SseEvent[], SseLimitError>;
}

const DEFAULT_MAX_LINE = 1 << 20;
const DEFAULT_MAX_EVENT = 8 << 20;
const LF = 10;
const COLON = 58;
const D = 100; // "d"
const E = 101; // "e"
const I = 105; // "i"
const STREAM: TextDecodeOptions = { stream: true };

/**
 * Whether the line `chunk[start, end)` is the field `name`: the whole line,
 * or the name followed by a colon.
 */
function isField(
  chunk: string,
  start: number,
  end: number,
  name: string,
): boolean {
  const after = start + name.length;
  return after <= end && chunk.startsWith(name, start) &&
    (after === end || chunk.charCodeAt(after) === COLON);
}

/**
 * Creates an incremental SSE parser. UTF-8 is decoded across reads (a
 * leading BOM is dropped); lines end at CRLF, LF or CR, also when split
 * across reads; `:` lines are comments; `event:` names the event; each
 * `data:` line appends (joined by `\n`); a blank line dispatches (an event
 * without data is not dispatched); one space after the colon is dropped;
 * unknown fields and `retry:` are ignored. A line longer than
 * `maxLineLength`, or an event larger than `maxEventLength`, is an error.
 *
 * @param options Line and event bounds.
 * @returns The parser.
 * @throws {RangeError} When a bound is not a positive integer.
 */
export function createSseParser(options: SseParserOptions = {}): SseParser {
  const maxLine = bound(options.maxLineLength, DEFAULT_MAX_LINE, "line");
  const maxEvent = bound(options.maxEventLength, DEFAULT_MAX_EVENT, "event");
  const decoder = new TextDecoder("utf-8");
  let buffer = "";
  let skipLf = false;
  let failed: SseLimitError | undefined;
  let eventName = "";
  let lastName = "";
  let data = "";
  let hasData = false;
  let lastId: string | undefined;

  function fail(error: SseLimitError): Result<SseEvent[], SseLimitError> {
    failed = error;
    return { ok: false, error };
  }

  /**
   * Applies the line `chunk[start, end)` (its terminator excluded); returns
   * an error when the event grows too large. Fields are matched in place:
   * only a value that is kept is sliced out.
   */
  function line(
    chunk: string,
    start: number,
    end: number,
    out: SseEvent[],
  ): SseLimitError | undefined {
    if (start === end) {
      if (hasData) {
        const ev: SseEvent = { event: eventName || "message", data };
        if (lastId !== undefined) ev.id = lastId;
        out.push(ev);
      }
      eventName = "";
      data = "";
      hasData = false;
      return undefined;
    }
    // The character after a field name that ends before `end` is the
    // line's own; at `end` it is the terminator, which no name contains.
    const first = chunk.charCodeAt(start);
    const field = first === D && isField(chunk, start, end, "data")
      ? 1
      : first === E && isField(chunk, start, end, "event")
      ? 2
      : first === I && isField(chunk, start, end, "id")
      ? 3
      : 0;
    if (field === 0) return undefined; // a comment, `retry` or unknown
    let at = start + (field === 1 ? 5 : field === 2 ? 6 : 3);
    if (at < end && chunk.charCodeAt(at) === 32) at++;
    if (field === 2) {
      // Most streams repeat a few names: the last one is kept, not sliced.
      if (end - at !== lastName.length || !chunk.startsWith(lastName, at)) {
        lastName = at >= end ? "" : chunk.slice(at, end);
      }
      eventName = lastName;
      return data.length + eventName.length > maxEvent
        ? { kind: "event_too_large", limit: maxEvent }
        : undefined;
    }
    const value = at >= end ? "" : chunk.slice(at, end);
    if (field === 1) {
      data = hasData ? data + "\n" + value : value;
      hasData = true;
    } else {
      if (!value.includes("\u0000")) lastId = value;
      return undefined;
    }
    if (data.length + eventName.length > maxEvent) {
      return { kind: "event_too_large", limit: maxEvent };
    }
    return undefined;
  }

  function feed(text: string): Result<SseEvent[], SseLimitError> {
    const out: SseEvent[] = [];
    // The buffered tail holds no terminator: scan only the new text.
    const scanFrom = buffer.length;
    let chunk = buffer + text;
    buffer = "";
    let start = 0;
    if (skipLf && chunk.length > 0) {
      if (chunk.charCodeAt(0) === LF) start = 1;
      skipLf = false;
    }
    const n = chunk.length;
    let i = Math.max(start, scanFrom);
    // Native scans for the next LF and CR; each is redone only once passed,
    // so the whole read is scanned once (most streams carry no CR at all).
    let lf = chunk.indexOf("\n", i);
    let cr = chunk.indexOf("\r", i);
    while (i < n) {
      if (lf !== -1 && lf < i) lf = chunk.indexOf("\n", i);
      if (cr !== -1 && cr < i) cr = chunk.indexOf("\r", i);
      const at = cr === -1 ? lf : lf === -1 ? cr : Math.min(lf, cr);
      if (at === -1) break;
      if (at - start > maxLine) {
        return fail({ kind: "line_too_long", limit: maxLine });
      }
      const problem = line(chunk, start, at, out);
      if (problem !== undefined) return fail(problem);
      i = at + 1;
      if (at === cr) {
        if (i < n) {
          if (chunk.charCodeAt(i) === LF) i++;
        } else {
          skipLf = true;
        }
      }
      start = i;
    }
    if (start < n) {
      if (n - start > maxLine) {
        return fail({ kind: "line_too_long", limit: maxLine });
      }
      buffer = chunk.slice(start);
    }
    chunk = "";
    return { ok: true, value: out };
  }

  return {
    push(bytes: Uint8Array): Result<SseEvent[], SseLimitError> {
      if (failed !== undefined) return { ok: false, error: failed };
      return feed(decoder.decode(bytes, STREAM));
    },
    end(): Result<SseEvent[], SseLimitError> {
      if (failed !== undefined) return { ok: false, error: failed };
      const result = feed(decoder.decode());
      buffer = "";
      eventName = "";
      data = "";
      hasData = false;
      return result;
    },
  };
}

function bound(
  value: number | undefined,
  fallback: number,
  what: string,
): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new RangeError(
      `Cannot create the SSE parser: max ${what} length must be a positive integer, got ${value}`,
    );
  }
  return value;
}
