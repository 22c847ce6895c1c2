/**
 * The secret screen: a configured key (any value of at least 8
 * characters) or a string shaped like a provider key, per this table (the
 * match must also hold a digit, as every issued key does), is replaced by
 * `[redacted]`:
 *
 * | Issuer | Shape |
 * |---|---|
 * | Anthropic, OpenAI, DeepSeek, OpenRouter | `sk-` (`sk-ant-`, `sk-proj-`, `sk-or-v1-`, …) + 20 or more of `[A-Za-z0-9_-]` |
 * | Google (Gemini) | `AIza` + 30 or more of `[A-Za-z0-9_-]` |
 * | Groq | `gsk_` + 20 or more of `[A-Za-z0-9]` |
 * | xAI | `xai-` + 20 or more of `[A-Za-z0-9]` |
 * | Hugging Face | `hf_` + 30 or more of `[A-Za-z0-9]` |
 * | Perplexity | `pplx-` + 20 or more of `[A-Za-z0-9]` |
 *
 * @module
 */

/** What a redacted secret reads as. */
const REDACTED = "[redacted]";

/** Nesting deeper than this is kept as is (events and rows are shallow). */
const MAX_DEPTH = 32;

/** Configured values shorter than this are not secrets (ordinary text). */
export const MIN_KEY_LENGTH: number = 8;

/**
 * The shapes of the module table, one alternative per row, in one pattern:
 * a text is scanned once, not once per shape. A match that runs into
 * another shape holds it whole (each row's characters are within `sk-`'s
 * and `AIza`'s), so either the longer match is redacted or neither is.
 */
const KEY_SHAPES =
  /\b(?:sk-[A-Za-z0-9_-]{20,}|AIza[A-Za-z0-9_-]{30,}|gsk_[A-Za-z0-9]{20,}|xai-[A-Za-z0-9]{20,}|hf_[A-Za-z0-9]{30,}|pplx-[A-Za-z0-9]{20,})/g;

/** Where a shape could start: a text without one has nothing to scan. */
const SHAPE_START = /\b(?:sk-|AIza|gsk_|xai-|hf_|pplx-)/;

/** The shortest text a shape matches (`sk-` and 20 more). */
const SHORTEST_SHAPE = 23;

/** A secret test and its redaction, over one set of configured keys. */
export interface SecretScreen {
  /** Whether the text is or contains a secret. */
  isSecret: (value: string) => boolean;
  /** The text with every secret replaced by `[redacted]`. */
  redact(text: string): string;
}

/**
 * The screen of the configured keys plus the key shapes of the table.
 *
 * @param keys Configured key values (shorter than 8 characters: ignored).
 * @returns The screen.
 */
export function createSecretScreen(keys: readonly string[]): SecretScreen {
  // Longest first: a key that contains another is replaced whole.
  const known = [...new Set(keys)].filter((k) => k.length >= MIN_KEY_LENGTH)
    .sort((a, b) => b.length - a.length);
  // A text shorter than every key and every shape holds none (most
  // strings of an event: its type, model, node id, a short delta).
  const shortest = Math.min(SHORTEST_SHAPE, ...known.map((k) => k.length));
  function redact(text: string): string {
    if (text.length < shortest) return text;
    let out = text;
    for (const k of known) {
      if (out.includes(k)) out = out.replaceAll(k, REDACTED);
    }
    if (!SHAPE_START.test(out)) return out;
    return out.replace(KEY_SHAPES, (m) => /\d/.test(m) ? REDACTED : m);
  }
  return { isSecret: (value) => redact(value) !== value, redact };
}

/**
 * A copy of `value` with `redact` applied to every string in it (object
 * keys kept); arrays and plain objects are copied, anything else is
 * returned as is. Depth-bounded: deeper values are kept unchanged.
 *
 * @param value Any JSON-like value (an event, a stored turn).
 * @param redact The redaction.
 * @returns The redacted copy.
 */
export function redactStrings<T>(
  value: T,
  redact: (text: string) => string,
): T {
  return redactWalk(value, redact, 0) as T;
}

// Module-level (no closure per call) and without entry pairs: every event
// and stored turn passes through it.
function redactWalk(
  v: unknown,
  redact: (text: string) => string,
  depth: number,
): unknown {
  if (typeof v === "string") return redact(v);
  if (typeof v !== "object" || v === null || depth > MAX_DEPTH) return v;
  if (Array.isArray(v)) return v.map((x) => redactWalk(x, redact, depth + 1));
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) {
    out[k] = redactWalk((v as Record<string, unknown>)[k], redact, depth + 1);
  }
  return out;
}
