/**
 * The persisted host: joins one session to one store.
 *
 * @example Placeholder until the host lands
 * ```ts
 * import { HOST_VERSION } from "@relavium/session/host";
 * import assert from "node:assert/strict";
 * assert.equal(typeof HOST_VERSION, "string");
 * ```
 *
 * @module
 */
/** Version of the host contract. */
export const HOST_VERSION: string = "1";
