/**
 * The Postgres session store, for sessions shared by many machines: the
 * asynchronous form of the store contract (`AsyncSessionStore`, documented
 * with the other store types on `@relavium/session/store`), each write one server-side function call,
 * the writer lease a row with an epoch fence judged by the database clock.
 * The driver (`npm:postgres`) is loaded only when a store is opened.
 *
 * @example Open, write a session, read it back
 * ```ts no-assert
 * import { openPostgresStore } from "@relavium/session/store/postgres";
 * const url = Deno.env.get("RELAVIUM_PG_URL");
 * if (url !== undefined) {
 *   const store = await openPostgresStore({ url });
 *   await store.create({
 *     id: crypto.randomUUID(), agentSlug: "mini",
 *     context: { workingDir: "/tmp", fsScopeTier: "sandboxed" },
 *   });
 *   console.log((await store.list()).length);
 *   await store.close();
 * }
 * ```
 *
 * @module
 */
export { openPostgresStore } from "./open.ts";
