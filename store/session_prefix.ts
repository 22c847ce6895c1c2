/**
 * Session ids by unique prefix: the rule every command that takes an id
 * follows. A whole id always names its session; a shorter text names the
 * one listed session whose id starts with it, given at least
 * {@linkcode MIN_SESSION_PREFIX} characters.
 *
 * @module
 */

/**
 * The fewest characters a prefix must have (a whole id may be shorter).
 * Four hex digits of a random id tell apart the sessions of one history
 * almost always; a longer prefix settles the rest.
 */
export const MIN_SESSION_PREFIX = 4;

/**
 * A session id as the matcher sees it: `listed` when a prefix may name it
 * (it appears in `chat-list`).
 */
export interface PrefixCandidate {
  /** The whole id. */
  id: string;
  /** Whether a prefix may name it. */
  listed: boolean;
}

/**
 * What a typed id names: one session, none, or too many.
 */
export type SessionMatch =
  | { kind: "found"; id: string }
  | { kind: "none" }
  | { kind: "too_short"; minimum: number }
  | { kind: "ambiguous"; ids: string[] };

/**
 * Matches a typed id against the stored ones: a whole id (listed or not)
 * first, then a prefix of at least {@linkcode MIN_SESSION_PREFIX}
 * characters that exactly one listed id starts with. Case matters, as it
 * does in the stored ids.
 *
 * @param wanted The id or prefix as typed.
 * @param candidates The stored ids, in listing order.
 * @returns The match; `ambiguous` lists the ids in listing order.
 */
export function matchSessionId(
  wanted: string,
  candidates: readonly PrefixCandidate[],
): SessionMatch {
  if (candidates.some((c) => c.id === wanted)) {
    return { kind: "found", id: wanted };
  }
  const hits = candidates.filter((c) => c.listed && c.id.startsWith(wanted));
  if (hits.length === 0) return { kind: "none" };
  if (wanted.length < MIN_SESSION_PREFIX) {
    return { kind: "too_short", minimum: MIN_SESSION_PREFIX };
  }
  const [only, ...more] = hits;
  if (only !== undefined && more.length === 0) {
    return { kind: "found", id: only.id };
  }
  return { kind: "ambiguous", ids: hits.map((c) => c.id) };
}
