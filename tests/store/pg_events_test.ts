/**
 * The Postgres session event table between two store handles (two
 * `serve` instances): only the lease holder appends, under the lease it
 * held when the events were queued; and a listener that lost its
 * connection catches up on what was appended meanwhile.
 *
 * @module
 */
import assert from "node:assert/strict";
import { openPostgresStore } from "../../store/postgres/mod.ts";
import { postgresEventTable } from "../../store/postgres/events.ts";
import { sharedEvents } from "../../serve/event_source.ts";
import type { AsyncSessionStore } from "../../store/store.ts";
import { adminSql, pgUrlForFile } from "./_pg.ts";
import { newSession } from "./_harness.ts";

type PgEventTable = NonNullable<ReturnType<typeof postgresEventTable>>;

const base = pgUrlForFile();

/** The event table of a Postgres handle. */
function eventsOf(store: AsyncSessionStore): PgEventTable {
  const table = postgresEventTable(store, 100);
  assert.ok(table, "a Postgres store has an event table");
  return table;
}

/** Two handles on a schema of their own, and the admin connection. */
async function twoHandles(
  fn: (
    a: AsyncSessionStore,
    b: AsyncSessionStore,
    admin: Awaited<ReturnType<typeof adminSql>>,
    url: string,
  ) => Promise<void>,
): Promise<void> {
  assert.ok(base !== undefined && base !== "unavailable", "no Postgres");
  const admin = await adminSql(base);
  const schema = `t_${crypto.randomUUID().replaceAll("-", "")}`;
  await admin.unsafe(`CREATE SCHEMA ${schema}`);
  const scoped = new URL(base);
  scoped.searchParams.set("search_path", schema);
  const a = await openPostgresStore({ url: scoped.href });
  const b = await openPostgresStore({ url: scoped.href });
  try {
    await fn(a, b, admin, scoped.href);
  } finally {
    await a.close();
    await b.close();
    await admin.unsafe(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  }
}

Deno.test({
  name: "pg events: only the lease holder appends, under its own lease",
  ignore: base === undefined,
  async fn() {
    await twoHandles(async (a, b, _admin, url) => {
      const s = newSession();
      await a.create(s);
      const ta = eventsOf(a);
      const tb = eventsOf(b);
      assert.ok((await a.acquireLease?.(s.id, { holderId: "A" }))?.ok);
      const held = ta.fence(s.id);
      await ta.append(s.id, [{ type: "a1", data: "{}" }], held);
      await a.releaseLease?.(s.id, "A");
      assert.equal(ta.fence(s.id), undefined, "released: no fence here");
      assert.ok((await b.acquireLease?.(s.id, { holderId: "B" }))?.ok);
      await tb.append(
        s.id,
        [{ type: "session:turn_started", data: "{}" }],
        tb.fence(s.id),
      );
      // A's late events: queued under its old lease, or after its release.
      for (const fence of [held, ta.fence(s.id)]) {
        await assert.rejects(
          ta.append(s.id, [{ type: "server:idle", data: "{}" }], fence),
          { name: "SessionLeaseError" },
        );
      }
      // A handle that never held the lease, with no fence at all.
      const c = await openPostgresStore({ url });
      try {
        const tc = eventsOf(c);
        await assert.rejects(
          tc.append(s.id, [{ type: "x", data: "{}" }], tc.fence(s.id)),
          { name: "SessionLeaseError" },
        );
      } finally {
        await c.close();
      }
      const rows = await tb.read(s.id, 0, 10);
      assert.deepEqual(rows.map((r) => [r.seq, r.type]), [
        [1, "a1"],
        [2, "session:turn_started"],
      ]);
    });
  },
});

Deno.test({
  name: "pg events: a server's events queued with no lease are never written",
  ignore: base === undefined,
  async fn() {
    await twoHandles(async (a, b) => {
      const s = newSession();
      await a.create(s);
      const srcA = await sharedEvents(eventsOf(a), 100);
      try {
        srcA.append(s.id, { type: "before" });
        await srcA.settle(s.id);
        assert.ok((await a.acquireLease?.(s.id, { holderId: "A" }))?.ok);
        srcA.append(s.id, { type: "held" });
        await srcA.settle(s.id);
        await a.releaseLease?.(s.id, "A");
        srcA.append(s.id, { type: "session:cancelled" });
        await srcA.settle(s.id);
        const rows = await eventsOf(b).read(s.id, 0, 10);
        assert.deepEqual(rows.map((r) => r.type), ["held"]);
      } finally {
        await srcA.close();
      }
    });
  },
});

Deno.test({
  name: "pg events: a listener that reconnects catches up on what it missed",
  ignore: base === undefined,
  async fn() {
    await twoHandles(async (a, b, admin) => {
      const s = newSession();
      await a.create(s);
      assert.ok((await a.acquireLease?.(s.id, { holderId: "A" }))?.ok);
      const ta = eventsOf(a);
      const srcB = await sharedEvents(eventsOf(b), 100);
      try {
        const logB = srcB.log(s.id);
        // Followed on B: a client waits on it.
        const unsubscribe = logB.subscribe({ deliver: () => {} });
        await srcB.settle(s.id);
        await ta.append(s.id, [{ type: "e1", data: "{}" }], ta.fence(s.id));
        // B's listening backend goes away; A appends while it is down.
        const killed = await admin.unsafe(
          `SELECT pg_terminate_backend(pid) AS k FROM pg_stat_activity
           WHERE query ILIKE 'listen%' AND pid <> pg_backend_pid()`,
        );
        assert.ok(killed.length >= 1, "a listening backend was found");
        await ta.append(s.id, [{ type: "e2", data: "{}" }], ta.fence(s.id));
        // Without any later append, B's log gets e2 (bounded wait).
        for (let i = 0; i < 100 && logB.lastSeq < 2; i++) {
          await new Promise((r) => setTimeout(r, 50));
        }
        assert.equal(logB.lastSeq, 2);
        unsubscribe();
      } finally {
        await srcB.close();
      }
    });
  },
});
