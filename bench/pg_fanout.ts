/**
 * Event fan-out between `serve` instances on Postgres: two store handles
 * (two pools, as two instances have), each with the shared event source
 * `serve` uses. Instance A holds the session's lease and appends events;
 * the figures are the time from A's append until the event is in the log
 * a client streams from:
 *
 * - on B (the other instance): A's batch written (`rlv_append_events`,
 *   fenced), `NOTIFY` of a pointer, B's listener reading the table;
 * - on A (the holder's own clients): the write only.
 *
 * One event at a time (`--events`, default 1,000, after 100 untimed),
 * p50 and p95; then a burst of `--burst` events (default 5,000) appended
 * at once, its time until the last reaches B (the batching: the next
 * batch leaves when the last is written).
 *
 * The server: `RELAVIUM_TEST_PG_URL`, else a throwaway cluster started
 * here (see `tests/store/_pg.ts`).
 *
 * @example Run it
 * ```sh
 * deno run -A bench/pg_fanout.ts
 * ```
 *
 * @module
 */
import { openPostgresStore } from "../store/postgres/mod.ts";
import { postgresEventTable } from "../store/postgres/events.ts";
import { type EventSource, sharedEvents } from "../serve/event_source.ts";
import type { AsyncSessionStore } from "../store/store.ts";
import { testPgUrl } from "../tests/store/_pg.ts";
import { countFlag, figures, out } from "./_bench_util.ts";

async function instance(
  url: string,
): Promise<{ store: AsyncSessionStore; events: EventSource }> {
  const store = await openPostgresStore({ url });
  const table = postgresEventTable(store, 10_000);
  if (table === undefined) throw new Error("not a Postgres store");
  return {
    store,
    events: await sharedEvents(table, 10_000, (e) => {
      throw e;
    }),
  };
}

/** Resolves when `events`'s log of `id` holds an event numbered `seq`. */
function arrival(events: EventSource, id: string) {
  const waiting = new Map<number, () => void>();
  events.log(id).subscribe({
    deliver(e): void {
      waiting.get(e.seq)?.();
      waiting.delete(e.seq);
    },
  });
  return (seq: number): Promise<void> => {
    if (events.log(id).lastSeq >= seq) return Promise.resolve();
    return new Promise((resolve) => waiting.set(seq, resolve));
  };
}

async function main(): Promise<void> {
  const url = testPgUrl();
  if (url === undefined) {
    out("No Postgres: install it or set RELAVIUM_TEST_PG_URL\n");
    return;
  }
  const count = countFlag("events", 1000);
  const burst = countFlag("burst", 5000);
  const a = await instance(url);
  const b = await instance(url);
  const id = crypto.randomUUID();
  await a.store.create({
    id,
    agentSlug: "bench",
    context: { workingDir: "/work", fsScopeTier: "sandboxed" },
  });
  await a.store.acquireLease?.(id, { holderId: crypto.randomUUID() });
  await b.events.settle(id);
  await a.events.settle(id);
  const onB = arrival(b.events, id);
  const onA = arrival(a.events, id);
  const far: number[] = [];
  const near: number[] = [];
  const event = (i: number) => ({
    type: "agent:token",
    sessionId: id,
    token: `token ${i} `,
  });
  for (let i = -100; i < count; i++) {
    const seq = a.events.log(id).lastSeq + 1;
    const t0 = performance.now();
    a.events.append(id, event(i));
    await onA(seq);
    const t1 = performance.now();
    await onB(seq);
    const t2 = performance.now();
    if (i >= 0) {
      near.push(t1 - t0);
      far.push(t2 - t0);
    }
  }
  const last = a.events.log(id).lastSeq + burst;
  const t0 = performance.now();
  for (let i = 0; i < burst; i++) a.events.append(id, event(i));
  await onB(last);
  const burstMs = performance.now() - t0;
  out(`Postgres event fan-out, ${count} events after 100 untimed\n`);
  out(`| measure | figure |\n| --- | --- |\n`);
  out(`| append on A → in B's log (other instance) | ${figures(far)} |\n`);
  out(`| append on A → in A's log (holder's clients) | ${figures(near)} |\n`);
  out(
    `| burst of ${burst} appended at once → last in B's log | ${
      burstMs.toFixed(0)
    } ms (${Math.round(burst / (burstMs / 1000))} events/s) |\n`,
  );
  await a.events.close();
  await b.events.close();
  await a.store.softDelete(id);
  await a.store.close();
  await b.store.close();
}

if (import.meta.main) await main();
