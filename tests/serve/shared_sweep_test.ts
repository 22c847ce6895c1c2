/**
 * The catch-up sweep of a shared event table: it reads only the sessions
 * followed here (with clients, or a turn running in the log), never a
 * session whose read is still on its way, and a read that keeps failing
 * is told once (naming the session) until one succeeds.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { LoggedEvent } from "../../serve/event_log.ts";
import {
  sharedEvents,
  type SharedEventTable,
} from "../../serve/event_source.ts";

/** A table in memory whose reads count, fail or hang on demand. */
function fakeTable() {
  const reads = new Map<string, number>();
  const rows = new Map<string, LoggedEvent[]>();
  const state = {
    failing: false,
    hang: undefined as Promise<void> | undefined,
    sweep: (): void => {},
  };
  const table: SharedEventTable<number> = {
    fence: () => 1,
    append(id, events) {
      const got = rows.get(id) ?? [];
      const first = got.length + 1;
      events.forEach((e, k) => got.push({ seq: first + k, ...e }));
      rows.set(id, got);
      return Promise.resolve(first);
    },
    async read(id, afterSeq, limit) {
      reads.set(id, (reads.get(id) ?? 0) + 1);
      if (state.hang !== undefined) await state.hang;
      if (state.failing) throw new Error("connection refused");
      return (rows.get(id) ?? []).filter((e) => e.seq > afterSeq).slice(
        0,
        limit,
      );
    },
    tail: () => Promise.resolve([]),
    listen(_onAppended, onListening) {
      state.sweep = onListening;
      return Promise.resolve(() => Promise.resolve());
    },
  };
  return { table, reads, rows, state };
}

Deno.test("shared events: the sweep reads only the sessions followed here", async () => {
  const { table, reads, rows, state } = fakeTable();
  const errors: string[] = [];
  const source = await sharedEvents(
    table,
    100,
    (e) => errors.push(String((e as Error).message)),
  );
  try {
    // Known here, followed by nobody: not read by the sweep.
    source.log("quiet");
    await source.settle("quiet");
    // A client.
    const stop = source.log("watched").subscribe({ deliver: () => {} });
    // A turn running in the log (another server's).
    rows.set("busy", [{
      seq: 1,
      type: "session:turn_started",
      data: "{}",
    }]);
    await source.settle("busy");
    assert.equal(source.log("busy").view.running, true);
    reads.clear();
    state.sweep();
    await source.settle("watched");
    await source.settle("busy");
    assert.equal(reads.get("quiet"), undefined);
    assert.ok((reads.get("watched") ?? 0) >= 1);
    assert.ok((reads.get("busy") ?? 0) >= 1);

    // A read on its way: the sweep adds none behind it.
    const hung = Promise.withResolvers<void>();
    state.hang = hung.promise;
    reads.clear();
    const settling = source.settle("watched");
    for (let i = 0; i < 100 && reads.get("watched") !== 1; i++) {
      await new Promise((r) => setTimeout(r, 1));
    }
    assert.equal(reads.get("watched"), 1, "the read is on its way");
    for (let i = 0; i < 5; i++) state.sweep();
    state.hang = undefined;
    hung.resolve();
    await settling;
    assert.equal(reads.get("watched"), 1);

    // A failing read is told once per outage, naming the session.
    state.failing = true;
    for (let i = 0; i < 5; i++) {
      state.sweep();
      await source.settle("watched");
    }
    const told = errors.filter((m) => m.includes("watched"));
    assert.equal(told.length, 1, JSON.stringify(errors));
    assert.match(told[0] ?? "", /read the events of session watched/);
    assert.match(told[0] ?? "", /connection refused/);
    state.failing = false;
    await source.settle("watched");
    state.failing = true;
    await source.settle("watched");
    assert.equal(errors.filter((m) => m.includes("watched")).length, 2);
    state.failing = false;
    stop();
  } finally {
    await source.close();
  }
});
