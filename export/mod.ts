/**
 * Session → workflow export.
 *
 * @example Placeholder until export lands
 * ```ts
 * import { EXPORT_SCHEMA_VERSION } from "@relavium/session/export";
 * import assert from "node:assert/strict";
 * assert.equal(EXPORT_SCHEMA_VERSION, "1.0");
 * ```
 *
 * @module
 */
/** The workflow `schema_version` export writes. */
export const EXPORT_SCHEMA_VERSION: string = "1.0";
