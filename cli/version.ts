/**
 * The package version, a constant in code (DECISIONS.md 22): `--version`
 * reads no file at run time.
 *
 * @module
 */

/**
 * The version `-V`/`--version` prints.
 *
 * @example Print it
 * ```ts
 * import { VERSION } from "./version.ts";
 * import assert from "node:assert/strict";
 * assert.match(VERSION, /^\d+\.\d+\.\d+/);
 * ```
 */
export const VERSION: string = "0.1.0";
