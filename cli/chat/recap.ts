/**
 * The recap a resumed chat prints on a terminal before its prompt: the
 * last exchanges of the conversation (a user message and its answer
 * each), newest last, every one bounded in lines and characters so a long
 * answer never floods the screen. Text is stripped of control sequences.
 *
 * @module
 */
import { stripControl } from "../io/control.ts";
import { paint } from "../io/color.ts";

/** Exchanges shown. */
export const RECAP_TURNS = 2;
/** Lines of one message shown, at most. */
const MAX_LINES = 6;
/** Characters of one message shown, at most. */
const MAX_CHARS = 480;

/** One earlier exchange: what was asked, what was answered. */
export interface RecapTurn {
  /** The user's text. */
  user: string;
  /** The answer's text. */
  assistant: string;
}

/** A message cut to its first lines and characters, `…` when cut. */
function bounded(text: string): string[] {
  const clean = stripControl(text).replace(/\s+$/, "");
  let shown = clean.length > MAX_CHARS
    ? `${Array.from(clean).slice(0, MAX_CHARS).join("")}`
    : clean;
  let cut = shown.length < clean.length;
  const lines = shown.split("\n");
  if (lines.length > MAX_LINES) {
    lines.length = MAX_LINES;
    cut = true;
  }
  shown = lines.join("\n");
  return `${shown}${cut ? " …" : ""}`.split("\n");
}

/**
 * The recap's text.
 *
 * @param turns Every completed turn, oldest first.
 * @param color Whether to style it.
 * @returns The lines (each ending in a newline), empty with no turn.
 */
export function recapText(
  turns: readonly RecapTurn[],
  color: boolean,
): string {
  if (turns.length === 0) return "";
  const shown = turns.slice(-RECAP_TURNS);
  const head = shown.length === turns.length
    ? "Earlier in this chat:"
    : `Earlier in this chat (the last ${shown.length} of ${turns.length} turns):`;
  const out = [paint("dim", head, color)];
  for (const t of shown) {
    const [first = "", ...rest] = bounded(t.user);
    // Not `> `: that is the prompt.
    out.push(
      `${paint("dim", "you:", color)} ${first}`,
      ...rest.map((l) => `     ${l}`),
    );
    out.push(...bounded(t.assistant));
    out.push("");
  }
  return out.map((l) => `${l}\n`).join("");
}
