/**
 * Durable sessions: the `SessionStore` interface, the SQLite (`history.db`)
 * and memory stores, and the structural projection used by resume and
 * export.
 *
 * @example Types
 * ```ts
 * import type { SessionStore } from "@relavium/session/store";
 * type Load = SessionStore["load"];
 * ```
 *
 * @module
 */
export * from "./store.ts";
