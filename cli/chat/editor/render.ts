/**
 * Drawing the edited text: the prompt, then the text, each of its lines
 * wrapped at the terminal width, lines after the first behind a
 * continuation prompt as wide as the prompt. A redraw goes back to the
 * start of the drawing, clears to the end of the screen, writes it all
 * and puts the cursor where it belongs; the returned row is where that
 * is, counted from the drawing's first row, for the next redraw.
 * Columns count code points (a tab shows as one space).
 *
 * @module
 */
import type { LineState } from "./line_state.ts";

// deno-lint-ignore no-control-regex
const SGR = /\x1b\[[0-9;]*m/g;

/**
 * Columns a string takes on screen (colour codes take none).
 *
 * @param text The text.
 * @returns Its width in code points.
 */
export function displayWidth(text: string): number {
  return Array.from(text.replace(SGR, "")).length;
}

/** A drawing and where it leaves the cursor. */
export interface Drawing {
  /** The bytes to write (to the terminal). */
  output: string;
  /** The cursor's row, from the drawing's first row. */
  cursorRow: number;
}

/**
 * Redraws the prompt and the text.
 *
 * @param state The text and cursor.
 * @param options The prompt, the terminal width, and the cursor's row
 * from the previous drawing (`0` for a fresh line).
 * @returns What to write and the new cursor row.
 */
export function drawLine(
  state: LineState,
  options: { prompt: string; columns: number; cursorRow: number },
): Drawing {
  const columns = Math.max(options.columns, 2);
  const promptWidth = displayWidth(options.prompt);
  const gutter = " ".repeat(Math.min(promptWidth, columns - 1));
  const lines = state.text.replaceAll("\t", " ").split("\n");
  const before = state.text.slice(0, state.cursor).split("\n");
  const cursorLine = before.length - 1;
  const cursorOffset = promptWidth * (cursorLine === 0 ? 1 : 0) +
    (cursorLine === 0 ? 0 : gutter.length) +
    Array.from(before[cursorLine] ?? "").length;
  let out = "\r" + (options.cursorRow > 0 ? `\x1b[${options.cursorRow}A` : "");
  out += "\x1b[J";
  let row = 0;
  let cursorRow = 0;
  let cursorCol = 0;
  lines.forEach((line, i) => {
    const prefix = i === 0 ? options.prompt : gutter;
    const width = (i === 0 ? promptWidth : gutter.length) +
      Array.from(line).length;
    if (i > 0) out += "\r\n";
    out += prefix + line;
    // A line that ends exactly at the right margin leaves the terminal
    // waiting to wrap; a space and CR put the cursor on the next row.
    if (width > 0 && width % columns === 0) out += " \r";
    if (i === cursorLine) {
      cursorRow = row + Math.floor(cursorOffset / columns);
      cursorCol = cursorOffset % columns;
    }
    row += Math.floor(width / columns) + (i < lines.length - 1 ? 1 : 0);
  });
  const up = row - cursorRow;
  if (up > 0) out += `\x1b[${up}A`;
  out += "\r" + (cursorCol > 0 ? `\x1b[${cursorCol}C` : "");
  return { output: out, cursorRow };
}
