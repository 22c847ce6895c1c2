/**
 * Colour: whether to use it and how to paint a string.
 *
 * @module
 */

/**
 * Decides colour: the flag, else `NO_COLOR` non-empty ⇒ off, else
 * `FORCE_COLOR` `0`/`false` ⇒ off, other non-empty ⇒ on, else on only
 * when the stream the colour goes to (stderr) is a terminal.
 *
 * @param flag `--color` (`true`), `--no-color` (`false`) or absent.
 * @param stream Reads an environment variable; whether the stream is a
 * terminal (absent ⇒ treated as one).
 * @returns Whether to colour human output.
 */
export function resolveColor(
  flag: boolean | undefined,
  stream: {
    env: (name: string) => string | undefined;
    isTerminal?: boolean;
  },
): boolean {
  if (flag !== undefined) return flag;
  const noColor = stream.env("NO_COLOR");
  if (noColor !== undefined && noColor !== "") return false;
  const force = stream.env("FORCE_COLOR");
  if (force === "0" || force === "false") return false;
  if (force !== undefined && force !== "") return true;
  return stream.isTerminal ?? true;
}

/**
 * Styles {@linkcode paint} knows.
 */
export type Style = "red" | "yellow" | "dim" | "bold";

const CODES: Readonly<Record<Style, [number, number]>> = {
  red: [31, 39],
  yellow: [33, 39],
  dim: [2, 22],
  bold: [1, 22],
};

/**
 * Wraps `text` in an SGR style when colour is on.
 *
 * @param style The style.
 * @param text The text.
 * @param enabled Whether colour is on.
 * @returns The text, styled or not.
 */
export function paint(style: Style, text: string, enabled: boolean): string {
  if (!enabled) return text;
  const [on, off] = CODES[style];
  return `\x1b[${on}m${text}\x1b[${off}m`;
}
