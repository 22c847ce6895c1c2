/**
 * Colour: whether to use it and how to paint a string.
 *
 * @module
 */

/**
 * Decides colour: the flag, else `NO_COLOR` non-empty ⇒ off, else
 * `FORCE_COLOR` `0`/`false` ⇒ off, else on.
 *
 * @param flag `--color` (`true`), `--no-color` (`false`) or absent.
 * @param env Reads an environment variable.
 * @returns Whether to colour human output.
 */
export function resolveColor(
  flag: boolean | undefined,
  env: (name: string) => string | undefined,
): boolean {
  if (flag !== undefined) return flag;
  const noColor = env("NO_COLOR");
  if (noColor !== undefined && noColor !== "") return false;
  const force = env("FORCE_COLOR");
  if (force === "0" || force === "false") return false;
  return true;
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
