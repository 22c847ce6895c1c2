/**
 * Bounding of the model-facing copy of a result. Events and
 * persistence keep structure only; only the model copy is cut.
 *
 * @module
 */

/**
 * Budgets of {@linkcode boundModelText}.
 */
export interface BoundOptions {
  /** Byte budget (UTF-8). */
  maxBytes: number;
  /** Line budget. */
  maxLines: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The model-facing text of a result: a string as-is, anything else as JSON
 * (`undefined` ⇒ `""`).
 *
 * @param value A tool's result.
 * @returns The text the model would see before bounding.
 */
export function resultText(value: unknown): string {
  if (typeof value === "string") return value;
  return JSON.stringify(value) ?? "";
}

/** What stands for a piece of a result that held a secret. */
const WITHHELD = "[redacted]";

/**
 * The model-facing text with every secret screened out: each
 * whitespace-separated piece the host's secret test flags (a configured
 * key, an encoding of one, a string shaped like a provider key) becomes
 * `[redacted]`; when the text still holds one (a key with spaces in it),
 * the whole text is withheld. Run before bounding, on the whole text.
 *
 * @param text The result text.
 * @param isSecret The host's secret test; absent ⇒ the text is unchanged.
 * @returns The screened text.
 */
export function screenResultText(
  text: string,
  isSecret: ((value: string) => boolean) | undefined,
): string {
  if (isSecret === undefined || !isSecret(text)) return text;
  const screened = text.split(/(\s+)/).map((piece) =>
    piece.trim() !== "" && isSecret(piece) ? WITHHELD : piece
  ).join("");
  return isSecret(screened)
    ? "[the result was withheld: it held an API key or a string shaped like one]"
    : screened;
}

function isContinuation(b: number | undefined): boolean {
  return b !== undefined && (b & 0xc0) === 0x80;
}

/** The longest prefix of ≤ `max` bytes ending on a code-point boundary. */
function headBytes(text: string, max: number): string {
  const bytes = encoder.encode(text);
  if (bytes.length <= max) return text;
  let end = Math.max(0, max);
  while (end > 0 && isContinuation(bytes[end])) end--;
  return decoder.decode(bytes.subarray(0, end));
}

/** The longest suffix of ≤ `max` bytes starting on a code-point boundary. */
function tailBytes(text: string, max: number): string {
  const bytes = encoder.encode(text);
  if (bytes.length <= max) return text;
  let start = bytes.length - Math.max(0, max);
  while (start < bytes.length && isContinuation(bytes[start])) start++;
  return decoder.decode(bytes.subarray(start));
}

/**
 * Bounds a result text to the byte and line budgets. Within both ⇒
 * unchanged. Otherwise, over the line budget `L`: head
 * `floor((L−1)·0.7)` lines and tail `L−1−head` lines, else head and tail of
 * the whole text; the head is cut to ≤ 70 % and the tail to ≤ 30 % of the
 * byte budget left after the marker and notice, at code-point boundaries;
 * joined `head\n…\ntail` and followed by
 * `\n\n[… truncated: <bytes> bytes / <lines> lines; full output unavailable (no output store)]`
 * where the figures are the original size (there is no spill
 * store yet). The result never exceeds `maxBytes` (unless the budget is
 * smaller than the notice itself); it has at most
 * `maxLines + 2` lines (the notice's two).
 *
 * @param text The full text.
 * @param options Byte and line budgets.
 * @returns The bounded text and whether it was cut.
 */
export function boundModelText(
  text: string,
  options: BoundOptions,
): { text: string; truncated: boolean } {
  const bytes = encoder.encode(text).length;
  const lines = text.split("\n");
  if (bytes <= options.maxBytes && lines.length <= options.maxLines) {
    return { text, truncated: false };
  }
  const notice = `\n\n[… truncated: ${bytes} bytes / ${lines.length} lines;` +
    ` full output unavailable (no output store)]`;
  const marker = "\n…\n";
  const budget = Math.max(
    0,
    options.maxBytes - encoder.encode(notice).length -
      encoder.encode(marker).length,
  );
  let head = text;
  let tail = text;
  if (lines.length > options.maxLines) {
    const headCount = Math.floor((options.maxLines - 1) * 0.7);
    const tailCount = options.maxLines - 1 - headCount;
    head = lines.slice(0, headCount).join("\n");
    tail = tailCount > 0
      ? lines.slice(lines.length - tailCount).join("\n")
      : "";
  }
  head = headBytes(head, Math.floor(budget * 0.7));
  tail = tailBytes(tail, Math.floor(budget * 0.3));
  return { text: `${head}${marker}${tail}${notice}`, truncated: true };
}

/**
 * A display summary of at most `max` characters (code points kept whole):
 * control characters become spaces, long base64-like runs become
 * `[binary data]`, and an overflow ends with `…`.
 *
 * @param text The text to summarise.
 * @param max Maximum length in UTF-16 units (default 500).
 * @returns The summary.
 */
export function summarizeText(text: string, max = 500): string {
  // deno-lint-ignore no-control-regex
  let s = text.replace(/[\u0000-\u001f\u007f]+/g, " ");
  s = s.replace(/[A-Za-z0-9+/=]{200,}/g, "[binary data]");
  if (s.length <= max) return s;
  let out = "";
  for (const cp of s) {
    if (out.length + cp.length > max - 1) break;
    out += cp;
  }
  return out + "…";
}
