/**
 * Linear wildcard matchers (no RegExp, no exponential backtracking): the
 * command flavour (the allowlist's globs) and a path flavour with `**`.
 *
 * @module
 */

/**
 * Greedy matcher with one backtrack point: `O(n·m)` at worst. Correct for
 * any per-element predicate where a non-star token consumes one element.
 */
function matchSequence<P, T>(
  pattern: readonly P[],
  text: readonly T[],
  isStar: (p: P) => boolean,
  matchOne: (p: P, t: T) => boolean,
): boolean {
  let pi = 0;
  let ti = 0;
  let star = -1;
  let mark = 0;
  while (ti < text.length) {
    const p = pattern[pi];
    const t = text[ti] as T;
    if (p !== undefined && isStar(p)) {
      star = pi++;
      mark = ti;
    } else if (p !== undefined && matchOne(p, t)) {
      pi++;
      ti++;
    } else if (star >= 0) {
      pi = star + 1;
      ti = ++mark;
    } else {
      return false;
    }
  }
  while (pi < pattern.length && isStar(pattern[pi] as P)) pi++;
  return pi === pattern.length;
}

/**
 * Whole-string wildcard match: `*` = any run (including empty, including
 * spaces and separators), `?` = exactly one code point, all else literal.
 *
 * @param pattern The pattern.
 * @param text The candidate.
 * @returns `true` when the whole text matches.
 */
export function matchWildcard(pattern: string, text: string): boolean {
  return matchSequence(
    Array.from(pattern),
    Array.from(text),
    (p) => p === "*",
    (p, t) => p === "?" || p === t,
  );
}

/**
 * Path glob match on `/`-separated relative paths: a `**` segment matches
 * any number of segments (including none); within a segment `*` and `?`
 * never cross a `/`. No character classes or braces; case-sensitive;
 * `*` also matches names that start with a dot.
 *
 * @param pattern The glob, `/`-separated.
 * @param path The candidate, `/`-separated.
 * @returns `true` when the whole path matches.
 */
export function matchPathGlob(pattern: string, path: string): boolean {
  const split = (s: string): string[] => s.split("/").filter((x) => x !== "");
  return matchSequence(
    split(pattern),
    split(path),
    (p) => p === "**",
    (p, t) => matchWildcard(p, t),
  );
}

/**
 * Whether a string contains glob syntax (`*` or `?`).
 *
 * @param text The string.
 * @returns `true` when it contains `*` or `?`.
 */
export function hasGlobSyntax(text: string): boolean {
  return text.includes("*") || text.includes("?");
}
