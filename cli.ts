/**
 * The `relavium` command line.
 *
 * @module
 */

/** The package version (a constant: no file reads at run time). */
export const VERSION: string = "0.1.0";

if (import.meta.main) {
  // deno-lint-ignore no-console
  console.log(VERSION);
}
