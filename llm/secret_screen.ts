/**
 * The secret screen: a configured key (any value of at least 8
 * characters), an encoding of one (base64 and base64url at any byte
 * offset, percent-encoding of every byte or of the URL-unsafe ones, hex;
 * hex digits in either case), or a string shaped like a provider key, per
 * this table (the match must also hold a digit, as every issued key does),
 * is replaced by `[redacted]`:
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

const utf8 = new TextEncoder();

/** Escapes a literal for a regular expression. */
function literal(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");
}

/** Hex of `bytes` as a pattern matching either case, each byte after `prefix`. */
function hexPattern(bytes: Uint8Array, prefix: string): string {
  let out = "";
  for (const b of bytes) {
    out += prefix;
    for (const d of b.toString(16).padStart(2, "0")) {
      out += /[a-f]/.test(d) ? `[${d}${d.toUpperCase()}]` : d;
    }
  }
  return out;
}

function base64(bytes: Uint8Array): string {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

/**
 * The base64 text of `bytes` wherever they sit in an encoded stream: for
 * each of the three byte offsets, the characters that depend on the key's
 * bytes alone (whole groups only), so a key embedded in a longer base64
 * text is found too.
 */
function base64Cores(bytes: Uint8Array): string[] {
  const cores: string[] = [];
  for (const shift of [0, 1, 2]) {
    const padded = new Uint8Array(shift + bytes.length);
    padded.set(bytes, shift);
    // Whole 3-byte groups only: the last partial group mixes in fill bits.
    const whole = padded.length - (padded.length % 3);
    const text = base64(padded.subarray(0, whole));
    // The first group mixes in the fill bytes: 0, 2 or 3 of its characters.
    const core = text.slice(shift === 0 ? 0 : shift === 1 ? 2 : 3);
    if (core.length >= MIN_KEY_LENGTH) cores.push(core);
  }
  return cores;
}

/**
 * The pattern sources that find one configured key: the key itself, its
 * base64 and base64url cores, its percent-encodings and its hex.
 */
function keyPatterns(key: string): { sources: string[]; shortest: number } {
  const bytes = utf8.encode(key);
  const out = new Set<string>([literal(key)]);
  const cores = base64Cores(bytes);
  for (const core of cores) {
    out.add(literal(core));
    out.add(literal(core.replaceAll("+", "-").replaceAll("/", "_")));
  }
  const component = encodeURIComponent(key);
  if (component !== key) out.add(literal(component));
  out.add(hexPattern(bytes, "%"));
  out.add(hexPattern(bytes, ""));
  const shortest = Math.min(key.length, ...cores.map((c) => c.length));
  return { sources: [...out], shortest };
}

/**
 * The screen of the configured keys (and their encodings) plus the key
 * shapes of the table.
 *
 * @param keys Configured key values (shorter than 8 characters: ignored).
 * @returns The screen.
 */
export function createSecretScreen(keys: readonly string[]): SecretScreen {
  const known = [...new Set(keys)].filter((k) => k.length >= MIN_KEY_LENGTH);
  // One pattern for every key and encoding, longest first: a key that
  // contains another (or an encoding holding a shorter one) goes whole.
  const each = known.map(keyPatterns);
  const sources = each.flatMap((k) => k.sources).sort((a, b) =>
    b.length - a.length
  );
  const pattern = sources.length === 0
    ? undefined
    : new RegExp(sources.join("|"), "g");
  // A text shorter than every key and every shape holds none (most
  // strings of an event: its type, model, node id, a short delta).
  const shortest = Math.min(SHORTEST_SHAPE, ...each.map((k) => k.shortest));
  function redact(text: string): string {
    if (text.length < shortest) return text;
    const out = pattern === undefined ? text : text.replace(pattern, REDACTED);
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
    const value = redactWalk(
      (v as Record<string, unknown>)[k],
      redact,
      depth + 1,
    );
    // An own `__proto__` key (JSON.parse keeps one) stays a key: assigned,
    // it would set the copy's prototype instead.
    if (k === "__proto__") {
      Object.defineProperty(out, k, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else out[k] = value;
  }
  return out;
}
