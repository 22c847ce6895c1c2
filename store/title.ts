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
  // Every turn's commit derives it (the row keeps the first), so a long
  // message is read only as far as its title needs: once a prefix holds
  // more than 40 code points after collapsing, the rest cannot change the
  // first 39.
  if (text.length > PREFIX) {
    const head = collapse(text.slice(0, PREFIX));
    if (head.length > TITLE_MAX) return cut(head);
  }
  const points = collapse(text);
  if (points.length === 0) return undefined;
  return points.length <= TITLE_MAX ? points.join("") : cut(points);
}

/** How much of a long text is read first (UTF-16 units). */
const PREFIX = 1024;

/** The code points of `text` with whitespace runs collapsed, trimmed. */
function collapse(text: string): string[] {
  return Array.from(text.replace(/\s+/gu, " ").trim());
}

/** The first 39 code points (trailing space trimmed) and `…`. */
function cut(points: readonly string[]): string {
  return `${points.slice(0, TITLE_MAX - 1).join("").trimEnd()}…`;
}
