/**
 * The text being edited and its cursor, and the pure edits keys make
 * on it: insert, delete, cursor and word moves, kills, and moving
 * between the lines of a multi-line message. The cursor is an index in
 * UTF-16 units that never splits a surrogate pair.
 *
 * @module
 */
import type { KeyName } from "./keys.ts";

/** A line (or several, joined by `\n`) and the cursor in it. */
export interface LineState {
  /** The whole text. */
  readonly text: string;
  /** Index into `text`, 0 … `text.length`. */
  readonly cursor: number;
}

/** The empty line. */
export const EMPTY_LINE: LineState = { text: "", cursor: 0 };

/** A state with the cursor at the end of `text`. */
export function lineAtEnd(text: string): LineState {
  return { text, cursor: text.length };
}

function isLow(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

function prev(text: string, i: number): number {
  if (i <= 0) return 0;
  return i >= 2 && isLow(text.charCodeAt(i - 1)) ? i - 2 : i - 1;
}

function next(text: string, i: number): number {
  if (i >= text.length) return text.length;
  return isLow(text.charCodeAt(i + 1)) ? i + 2 : i + 1;
}

const WORD = /[\p{L}\p{N}_]/u;

function wordLeft(text: string, i: number): number {
  let j = i;
  while (j > 0 && !WORD.test(text[j - 1] ?? "")) j--;
  while (j > 0 && WORD.test(text[j - 1] ?? "")) j--;
  return j;
}

function wordRight(text: string, i: number): number {
  let j = i;
  while (j < text.length && !WORD.test(text[j] ?? "")) j++;
  while (j < text.length && WORD.test(text[j] ?? "")) j++;
  return j;
}

/** Start of the line the cursor is on. */
function lineStart(text: string, i: number): number {
  return text.lastIndexOf("\n", i - 1) + 1;
}

/** End of the line the cursor is on. */
function lineEnd(text: string, i: number): number {
  const nl = text.indexOf("\n", i);
  return nl === -1 ? text.length : nl;
}

/**
 * Inserts text at the cursor.
 *
 * @param state The line.
 * @param text What to insert.
 * @returns The new line, cursor after the insertion.
 */
export function insertText(state: LineState, text: string): LineState {
  const { cursor } = state;
  return {
    text: state.text.slice(0, cursor) + text + state.text.slice(cursor),
    cursor: cursor + text.length,
  };
}

function cut(state: LineState, from: number, to: number): LineState {
  return {
    text: state.text.slice(0, from) + state.text.slice(to),
    cursor: from,
  };
}

/**
 * Applies an editing key.
 *
 * @param state The line.
 * @param name The key.
 * @returns The edited line, or `undefined` when the key is not an edit
 * (Enter, Tab, Up/Down, Ctrl-C, …: the reader's business).
 */
export function applyEdit(
  state: LineState,
  name: KeyName,
): LineState | undefined {
  const { text, cursor } = state;
  switch (name) {
    case "newline":
      return insertText(state, "\n");
    case "backspace":
      return cut(state, prev(text, cursor), cursor);
    case "delete":
      return cut(state, cursor, next(text, cursor));
    case "left":
      return { text, cursor: prev(text, cursor) };
    case "right":
      return { text, cursor: next(text, cursor) };
    case "word-left":
      return { text, cursor: wordLeft(text, cursor) };
    case "word-right":
      return { text, cursor: wordRight(text, cursor) };
    case "home":
      return { text, cursor: lineStart(text, cursor) };
    case "end":
      return { text, cursor: lineEnd(text, cursor) };
    case "kill-word":
      return cut(state, wordLeft(text, cursor), cursor);
    case "kill-start":
      return cut(state, lineStart(text, cursor), cursor);
    case "kill-end":
      return cut(state, cursor, lineEnd(text, cursor));
    default:
      return undefined;
  }
}

/**
 * Moves the cursor to the line above or below in a multi-line text,
 * keeping its column where that line is long enough.
 *
 * @param state The line.
 * @param direction `-1` up, `1` down.
 * @returns The moved state, or `undefined` on the first (last) line.
 */
export function moveLine(
  state: LineState,
  direction: -1 | 1,
): LineState | undefined {
  const { text, cursor } = state;
  const start = lineStart(text, cursor);
  const column = cursor - start;
  if (direction === -1) {
    if (start === 0) return undefined;
    const above = lineStart(text, start - 1);
    return { text, cursor: Math.min(above + column, start - 1) };
  }
  const end = lineEnd(text, cursor);
  if (end === text.length) return undefined;
  const below = end + 1;
  return { text, cursor: Math.min(below + column, lineEnd(text, below)) };
}
