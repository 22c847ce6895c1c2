/**
 * Colour: whether to use it (cli.md §1) and how to paint a string.
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
 *
 * @example Precedence
 * ```ts
 * import { resolveColor } from "./color.ts";
 * import assert from "node:assert/strict";
 * const env = (vars: Record<string, string>) => (n: string) => vars[n];
 * assert.equal(resolveColor(true, env({ NO_COLOR: "1" })), true);
 * assert.equal(resolveColor(undefined, env({ NO_COLOR: "1" })), false);
 * assert.equal(resolveColor(undefined, env({ NO_COLOR: "" })), true);
 * assert.equal(resolveColor(undefined, env({ FORCE_COLOR: "false" })), false);
 * assert.equal(resolveColor(undefined, env({})), true);
 * ```
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
 *
 * @example Value
 * ```ts
 * import type { Style } from "./color.ts";
 * const s: Style = "red";
 * ```
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
 *
 * @example Off is the identity
 * ```ts
 * import { paint } from "./color.ts";
 * import assert from "node:assert/strict";
 * assert.equal(paint("red", "x", false), "x");
 * assert.equal(paint("red", "x", true), "\x1b[31mx\x1b[39m");
 * ```
 */
export function paint(style: Style, text: string, enabled: boolean): string {
  if (!enabled) return text;
  const [on, off] = CODES[style];
  return `\x1b[${on}m${text}\x1b[${off}m`;
}
