/**
 * Session title derivation.
 *
 * @module
 */

/** Longest title, in code points. */
const TITLE_MAX = 40;

/**
 * Derives a session title from the first completed turn's user text:
 * whitespace runs collapse to one space and the result is trimmed; empty
 * ⇒ no title. At most 40 code points are kept as is; longer text keeps its
 * first 39 code points (trailing space trimmed) followed by `…`. Code
 * points are counted, so surrogate pairs are never split.
 *
 * @param text The user text.
 * @returns The title, or `undefined` when the text is blank.
 */
export function deriveTitle(text: string): string | undefined {
  const collapsed = text.replace(/\s+/gu, " ").trim();
  if (collapsed === "") return undefined;
  const points = Array.from(collapsed);
  if (points.length <= TITLE_MAX) return collapsed;
  return `${points.slice(0, TITLE_MAX - 1).join("").trimEnd()}…`;
}
