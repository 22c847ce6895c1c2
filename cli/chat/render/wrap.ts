/**
 * Word wrap for the terminal: lines break at spaces, never inside a
 * word (a word wider than the line alone is cut); the width counts what
 * shows, so SGR colour sequences count as nothing and wide (East Asian,
 * emoji) characters as two columns. Continuation lines get an indent.
 *
 * @module
 */

// deno-lint-ignore no-control-regex
const SGR = /\x1b\[[0-9;]*m/g;
const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]|[\u{1f300}-\u{1faff}]/u;

/**
 * The columns a string takes on a terminal.
 *
 * @param text Text, possibly with SGR sequences.
 * @returns Its width in columns.
 */
export function visibleWidth(text: string): number {
  let width = 0;
  for (const c of text.replace(SGR, "")) width += WIDE.test(c) ? 2 : 1;
  return width;
}

/** Splits a too-wide word into pieces of at most `width` columns. */
function cutWord(word: string, width: number): string[] {
  const pieces: string[] = [];
  let piece = "";
  let used = 0;
  // SGR sequences ride along with the character after them.
  for (const part of word.split(/(\x1b\[[0-9;]*m)/)) {
    if (part.startsWith("\x1b[")) {
      piece += part;
      continue;
    }
    for (const c of part) {
      const w = WIDE.test(c) ? 2 : 1;
      if (used + w > width && used > 0) {
        pieces.push(piece);
        piece = "";
        used = 0;
      }
      piece += c;
      used += w;
    }
  }
  if (piece !== "") pieces.push(piece);
  return pieces;
}

/**
 * Wraps one line (no newline in it) to `width` columns.
 *
 * @param line The line.
 * @param width The columns available (at least 1 is used).
 * @param indent Prefix of every continuation line (counted in the width).
 * @returns The wrapped lines.
 */
export function wrapLine(line: string, width: number, indent = ""): string[] {
  const max = Math.max(1, width);
  if (visibleWidth(line) <= max) return [line];
  const lines: string[] = [];
  let current = "";
  let used = 0;
  const room = (): number => max - (lines.length === 0 ? 0 : indent.length);
  const push = (): void => {
    lines.push(lines.length === 0 ? current : `${indent}${current}`);
    current = "";
    used = 0;
  };
  for (const word of line.split(" ")) {
    const w = visibleWidth(word);
    if (used > 0 && used + 1 + w <= room()) {
      current += ` ${word}`;
      used += 1 + w;
      continue;
    }
    if (used > 0 || current !== "") push();
    if (w <= room()) {
      current = word;
      used = w;
      continue;
    }
    const pieces = cutWord(word, Math.max(1, room()));
    for (const [i, piece] of pieces.entries()) {
      current = piece;
      used = visibleWidth(piece);
      if (i < pieces.length - 1) push();
    }
  }
  if (used > 0 || current !== "") push();
  return lines;
}
