/**
 * The package version, a constant in code: `--version`
 * reads no file at run time.
 *
 * @module
 */

/**
 * The version `-V`/`--version` prints.
 */
export const VERSION: string = "0.2.0";
