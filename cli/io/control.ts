/**
 * The output room's one sanitiser of text that reaches a terminal: it
 * removes ESC sequences (CSI, OSC, DCS, SOS, PM, APC and two-byte
 * escapes), their 8-bit C1 forms, C0 controls other than tab and newline,
 * and the bidirectional controls (U+200E, U+200F, U+061C, U+202A–U+202E,
 * U+2066–U+2069), which would reorder what the terminal shows. Text a
 * person approves (a path, a command) keeps a visible mark for each bidi
 * control instead (`<U+202E>`), so the name shown is the name used.
 * Streaming-safe: a sequence split across tokens is held back until it
 * completes.
 *
 * @module
 */

/**
 * A stateful stripper for one stream of text.
 */
export interface ControlStripper {
  /** Returns the printable part of `text` (plus held text now complete). */
  push(text: string): string;
  /** Ends the stream: an unfinished sequence is dropped. */
  flush(): string;
}

const ESC = 0x1b;
const BEL = 0x07;
/** Longest unfinished sequence held back before it is dropped. */
const MAX_PENDING = 4096;

type Scan = { kind: "done"; end: number } | { kind: "partial" };

function isStringIntro(c: number): boolean {
  // ESC ] (OSC), ESC P (DCS), ESC X (SOS), ESC ^ (PM), ESC _ (APC)
  return c === 0x5d || c === 0x50 || c === 0x58 || c === 0x5e || c === 0x5f;
}

function scanCsi(s: string, i: number): Scan {
  let j = i;
  while (j < s.length) {
    const c = s.charCodeAt(j);
    if (c >= 0x40 && c <= 0x7e) return { kind: "done", end: j + 1 };
    if (c < 0x20 || c > 0x7e) return { kind: "done", end: j };
    j++;
  }
  return { kind: "partial" };
}

function scanString(s: string, i: number): Scan {
  let j = i;
  while (j < s.length) {
    const c = s.charCodeAt(j);
    if (c === BEL || c === 0x9c) return { kind: "done", end: j + 1 };
    if (c === ESC) {
      if (j + 1 >= s.length) return { kind: "partial" };
      if (s.charCodeAt(j + 1) === 0x5c) return { kind: "done", end: j + 2 };
    }
    j++;
  }
  return { kind: "partial" };
}

/** Scans the sequence starting at `s[i]` (an ESC or a C1 introducer). */
function scanSequence(s: string, i: number): Scan {
  const c = s.charCodeAt(i);
  if (c === 0x9b) return scanCsi(s, i + 1);
  if (c === 0x9d || c === 0x90 || c === 0x98 || c === 0x9e || c === 0x9f) {
    return scanString(s, i + 1);
  }
  if (c !== ESC) return { kind: "done", end: i + 1 };
  if (i + 1 >= s.length) return { kind: "partial" };
  const next = s.charCodeAt(i + 1);
  if (next === 0x5b) return scanCsi(s, i + 2);
  if (isStringIntro(next)) return scanString(s, i + 2);
  let j = i + 1;
  while (j < s.length) {
    const d = s.charCodeAt(j);
    if (d >= 0x20 && d <= 0x2f) {
      j++;
      continue;
    }
    return { kind: "done", end: d >= 0x30 && d <= 0x7e ? j + 1 : j };
  }
  return { kind: "partial" };
}

function isIntroducer(c: number): boolean {
  return c === ESC || c === 0x9b || c === 0x9d || c === 0x90 || c === 0x98 ||
    c === 0x9e || c === 0x9f;
}

function isDroppedControl(c: number): boolean {
  if (c === 0x09 || c === 0x0a) return false;
  return c < 0x20 || c === 0x7f || (c >= 0x80 && c <= 0x9f);
}

/** Whether `c` is a bidirectional control (embedding, override, isolate, mark). */
function isBidiControl(c: number): boolean {
  return c === 0x200e || c === 0x200f || c === 0x061c ||
    (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

/** Options of {@linkcode createControlStripper}. */
export interface ControlStripperOptions {
  /**
   * Show each bidi control as a visible `<U+XXXX>` instead of dropping it
   * (text a person approves).
   */
  markBidi?: boolean;
}

/**
 * Creates a {@linkcode ControlStripper}.
 *
 * @param options Whether bidi controls are marked rather than dropped.
 * @returns A stripper with no held text.
 */
export function createControlStripper(
  options: ControlStripperOptions = {},
): ControlStripper {
  let pending = "";
  return {
    push(text: string): string {
      const s = pending + text;
      pending = "";
      let out = "";
      let i = 0;
      while (i < s.length) {
        const c = s.charCodeAt(i);
        if (isIntroducer(c)) {
          const r = scanSequence(s, i);
          if (r.kind === "partial") {
            const rest = s.slice(i);
            pending = rest.length > MAX_PENDING ? "" : rest;
            return out;
          }
          i = r.end;
          continue;
        }
        if (isBidiControl(c)) {
          if (options.markBidi === true) {
            out += `<U+${c.toString(16).toUpperCase().padStart(4, "0")}>`;
          }
        } else if (!isDroppedControl(c)) out += s[i];
        i++;
      }
      return out;
    },
    flush(): string {
      pending = "";
      return "";
    },
  };
}

/**
 * Strips control sequences from one complete string.
 *
 * @param text Untrusted text.
 * @param options Whether bidi controls are marked rather than dropped.
 * @returns The printable text.
 */
export function stripControl(
  text: string,
  options?: ControlStripperOptions,
): string {
  const s = createControlStripper(options);
  return s.push(text) + s.flush();
}
