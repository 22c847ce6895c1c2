/**
 * The pure half of `@path` and `!cmd`: the `!` tokeniser,
 * `@` markers, nonces, attribute sanitising, content bounds and the
 * `<file>` / `<command>` framing appended to a user message. The nonce
 * (32 lowercase hex, 128 random bits, fresh per injection) is on the open
 * and the close tag, so injected content cannot close its own frame.
 *
 * @module
 */

/**
 * A source of random bytes (`crypto.getRandomValues` in production).
 */
export type RandomBytes = (length: number) => Uint8Array;

/** Content bound in UTF-16 code units. */
export const CONTENT_MAX_CHARS = 131_072;
/** Line bound applied after the character bound. */
export const CONTENT_MAX_LINES = 400;

const WS = new Set([" ", "\t", "\r", "\n"]);

/**
 * Splits a `!` line into argv: space, tab, CR and LF separate; `'…'` and
 * `"…"` group (quotes removed, no escapes; an unterminated quote runs to
 * the end of the line). Nothing is expanded: no globs, `$`, `~`, `;`,
 * `|` or `&&` (they stay literal characters of their token).
 *
 * @param text The line after the `!`.
 * @returns The tokens; empty for a blank line.
 */
export function tokenizeCommand(text: string): string[] {
  const out: string[] = [];
  let token = "";
  let inToken = false;
  let quote: string | undefined;
  for (const ch of text) {
    if (quote !== undefined) {
      if (ch === quote) quote = undefined;
      else token += ch;
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = ch;
      inToken = true;
      continue;
    }
    if (WS.has(ch)) {
      if (inToken) out.push(token);
      token = "";
      inToken = false;
      continue;
    }
    token += ch;
    inToken = true;
  }
  if (inToken) out.push(token);
  return out;
}

/**
 * A fresh nonce: 32 lowercase hex digits from 16 random bytes.
 *
 * @param random The random source.
 * @returns The nonce.
 * @throws {RangeError} When the source returns fewer than 16 bytes.
 */
export function newNonce(random: RandomBytes): string {
  const bytes = random(16);
  if (bytes.length < 16) throw new RangeError("Random source too short");
  let hex = "";
  for (const b of bytes.subarray(0, 16)) {
    hex += b.toString(16).padStart(2, "0");
  }
  return hex;
}

/**
 * Sanitises an attribute value: removes C0, DEL, C1, the bidi marks and
 * overrides (U+200E, U+200F, U+061C, U+202A–U+202E, U+2066–U+2069) and
 * `<`, `>`, `"`.
 *
 * @param text The raw value (a path, a command line).
 * @returns The value, safe inside `"…"`.
 */
export function sanitizeAttr(text: string): string {
  return text.replace(ATTR_DROP, "");
}

/**
 * A message as the person wrote it: the text before its first `<file …>`
 * or `<command …>` frame (frames follow the typed text), trimmed. A text
 * cut short inside a frame's opening tag (a stored title) loses the tag.
 *
 * @param text A stored user message or title.
 * @returns The typed text.
 */
export function withoutFrames(text: string): string {
  return text.replace(FRAME_START, "").trimEnd();
}

const FRAME_START = /\s*<(?:file|command) id="[0-9a-f]{0,32}(?:"[\s\S]*)?…?$/;

const ATTR_DROP =
  // deno-lint-ignore no-control-regex
  /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069<>"]/g;

function isHigh(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLow(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * Bounds injected content: over 131,072 UTF-16 units ⇒ the first 75 %,
 * `\n… [truncated X of Y chars] …\n`, the last 25 % (never splitting a
 * surrogate pair); then over 400 lines ⇒ the first 300 lines,
 * `… [truncated N lines] …`, the last 100.
 *
 * @param text The content.
 * @returns The bounded content (unchanged when within both bounds).
 */
export function boundContent(text: string): string {
  let out = text;
  if (out.length > CONTENT_MAX_CHARS) {
    let head = Math.floor(CONTENT_MAX_CHARS * 0.75);
    let tailStart = out.length - (CONTENT_MAX_CHARS - head);
    if (isHigh(out.charCodeAt(head - 1))) head--;
    if (isLow(out.charCodeAt(tailStart))) tailStart++;
    const cut = tailStart - head;
    out = `${
      out.slice(0, head)
    }\n… [truncated ${cut} of ${out.length} chars] …\n${out.slice(tailStart)}`;
  }
  const lines = out.split("\n");
  if (lines.length > CONTENT_MAX_LINES) {
    const cut = lines.length - 400;
    out = [
      ...lines.slice(0, 300),
      `… [truncated ${cut} lines] …`,
      ...lines.slice(-100),
    ].join("\n");
  }
  return out;
}

/**
 * Frames a file for the user message:
 * `<file id="NONCE" path="ATTR">\n<content>\n</file:NONCE>`.
 *
 * @param nonce A fresh nonce.
 * @param path The path as typed.
 * @param content The file's text (bounded here).
 * @returns The frame.
 */
export function frameFile(
  nonce: string,
  path: string,
  content: string,
): string {
  return `<file id="${nonce}" path="${sanitizeAttr(path)}">\n${
    boundContent(content)
  }\n</file:${nonce}>`;
}

/**
 * Frames a command's output for the next user message:
 * `<command id="NONCE" cmd="ATTR" exit="N">\n<stdout>[\n[stderr]\n<stderr>]\n</command:NONCE>`
 * (the stderr part only when there is any).
 *
 * @param nonce A fresh nonce.
 * @param run The command line and its result.
 * @returns The frame.
 */
export function frameCommand(
  nonce: string,
  run: { cmd: string; exitCode: number; stdout: string; stderr: string },
): string {
  const body = run.stderr === ""
    ? run.stdout
    : `${run.stdout}\n[stderr]\n${run.stderr}`;
  return `<command id="${nonce}" cmd="${
    sanitizeAttr(run.cmd)
  }" exit="${run.exitCode}">\n${boundContent(body)}\n</command:${nonce}>`;
}

/**
 * The `@path` markers of a line: an `@` at the start, after whitespace or
 * after an opening `(`, `[`, `{`, `"`, `'`, then the path up to the next
 * whitespace, minus trailing punctuation
 * (`.,;:!?)]}'"`). Each path once, in order. An e-mail address has no
 * marker (no word boundary before its `@`).
 *
 * @param text The submitted line.
 * @returns The paths.
 */
export function fileMarkers(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?<=^|[ \t\r\n([{"'])@([^ \t\r\n]+)/g)) {
    const path = (m[1] ?? "").replace(/[.,;:!?)\]}'"]+$/, "");
    if (path !== "" && !out.includes(path)) out.push(path);
  }
  return out;
}

/**
 * The estimate of a text's tokens: `ceil(chars / 4)`.
 *
 * @param text The text.
 * @returns Estimated tokens.
 */
export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
