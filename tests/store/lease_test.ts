/**
 * One writer per session: the lease both stores keep (taken, refused,
 * renewed, released, taken over when stale or when its holder is gone),
 * and, in SQLite, the check every write makes that its lease is still its
 * own, across two handles on one file.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { createMemoryStore } from "../../store/memory_store.ts";
import {
  openSqliteStore,
  type SqliteStoreOptions,
} from "../../store/sqlite_store.ts";
import { SessionNotFoundError } from "../../store/errors.ts";
import type { SessionStore } from "../../store/store.ts";
import { LEASE_STALE_MS } from "../../store/lease_policy.ts";
import { methodsOf, newSession, tempDir, turn } from "./_harness.ts";

/** A clock the test moves. */
function manualClock(): { now(): number; set(ms: number): void } {
  let t = Date.UTC(2026, 0, 1);
  return {
    now: () => t,
    set(ms: number) {
      t = ms;
    },
  };
}

const T0 = Date.UTC(2026, 0, 1);

/**
 * A fresh store file holding session `s1`, leased to holder `a` through
 * `holder`, and a second connection `other` (both opened with
 * `options`); disposing closes both and removes the folder.
 */
async function leasedPair(options: SqliteStoreOptions = {}): Promise<
  AsyncDisposable & { path: string; holder: SessionStore; other: SessionStore }
> {
  const dir = await tempDir();
  const path = `${dir.path}/history.db`;
  const holder = openSqliteStore(path, options);
  const other = openSqliteStore(path, options);
  const dispose = async () => {
    holder.close();
    other.close();
    await dir[Symbol.asyncDispose]();
  };
  try {
    holder.create(newSession());
    assert.ok(lease(holder).acquireLease("s1", { holderId: "a" }).ok);
  } catch (e) {
    await dispose();
    throw e;
  }
  return { path, holder, other, [Symbol.asyncDispose]: dispose };
}

const OPENERS: Array<{
  name: string;
  open(
    clock: { now(): number },
  ): Promise<{ store: SessionStore } & AsyncDisposable>;
}> = [
  {
    name: "memory",
    open(clock) {
      const store = createMemoryStore({ clock });
      return Promise.resolve({
        store,
        [Symbol.asyncDispose]: () => Promise.resolve(),
      });
    },
  },
  {
    name: "sqlite",
    async open(clock) {
      const dir = await tempDir();
      const store = openSqliteStore(`${dir.path}/history.db`, { clock });
      return {
        store,
        async [Symbol.asyncDispose]() {
          store.close();
          await dir[Symbol.asyncDispose]();
        },
      };
    },
  },
];

function lease(store: SessionStore): Required<
  Pick<SessionStore, "acquireLease" | "renewLease" | "releaseLease">
> {
  const keys = ["acquireLease", "renewLease", "releaseLease"] as const;
  return methodsOf(store, keys, "lease methods");
}

for (const opener of OPENERS) {
  const test = (name: string, fn: () => Promise<void>) =>
    Deno.test(`${name} [${opener.name}]`, fn);

  test("acquireLease() takes a free lease, refuses a live holder, is idempotent for its holder", async () => {
    const clock = manualClock();
    await using s = await opener.open(clock);
    s.store.create(newSession());
    const l = lease(s.store);
    const a = { holderId: "a", pid: 41, hostname: "box" };
    assert.deepEqual(l.acquireLease("s1", a), { ok: true });
    assert.deepEqual(l.acquireLease("s1", a), { ok: true }, "same holder");
    clock.set(T0 + 5_000);
    const refused = l.acquireLease("s1", { holderId: "b", hostname: "box" });
    assert.deepEqual(refused, {
      ok: false,
      heldBy: {
        holderId: "a",
        pid: 41,
        hostname: "box",
        acquiredAt: new Date(T0).toISOString(),
        heartbeatAt: new Date(T0).toISOString(),
      },
    });
    assert.throws(
      () => l.acquireLease("nope", a),
      SessionNotFoundError,
    );
    assert.throws(() => l.acquireLease("s1", { holderId: "" }), TypeError);
  });

  test("acquireLease() takes over a lease whose heartbeat is older than the timeout", async () => {
    const clock = manualClock();
    await using s = await opener.open(clock);
    s.store.create(newSession());
    const l = lease(s.store);
    l.acquireLease("s1", { holderId: "a" });
    clock.set(T0 + LEASE_STALE_MS);
    assert.equal(l.renewLease("s1", "a"), true, "a renews at the limit");
    clock.set(T0 + 2 * LEASE_STALE_MS);
    assert.equal(l.acquireLease("s1", { holderId: "b" }).ok, false);
    clock.set(T0 + 2 * LEASE_STALE_MS + 1);
    const taken = l.acquireLease("s1", { holderId: "b" });
    assert.ok(taken.ok);
    assert.equal(taken.tookOver?.holderId, "a");
    assert.equal(l.renewLease("s1", "a"), false, "a lost it");
    assert.equal(l.renewLease("s1", "b"), true);
  });

  test("acquireLease() takes over from a dead process of its own host only", async () => {
    const clock = manualClock();
    await using s = await opener.open(clock);
    s.store.create(newSession());
    const l = lease(s.store);
    l.acquireLease("s1", { holderId: "a", pid: 41, hostname: "box" });
    const dead = (pid: number) => pid !== 41;
    const elsewhere = { holderId: "b", hostname: "other", isAlive: dead };
    assert.equal(l.acquireLease("s1", elsewhere).ok, false, "another host");
    const unsure = { holderId: "b", hostname: "box", isAlive: () => undefined };
    assert.equal(l.acquireLease("s1", unsure).ok, false, "cannot tell");
    const alive = { holderId: "b", hostname: "box", isAlive: () => true };
    assert.equal(l.acquireLease("s1", alive).ok, false, "alive");
    const here = { holderId: "b", pid: 42, hostname: "box", isAlive: dead };
    const taken = l.acquireLease("s1", here);
    assert.ok(taken.ok);
    assert.equal(taken.tookOver?.pid, 41);
  });

  test("releaseLease() frees it for the next holder; another holder's release changes nothing", async () => {
    const clock = manualClock();
    await using s = await opener.open(clock);
    s.store.create(newSession());
    const l = lease(s.store);
    l.acquireLease("s1", { holderId: "a" });
    l.releaseLease("s1", "b");
    assert.equal(l.acquireLease("s1", { holderId: "b" }).ok, false);
    l.releaseLease("s1", "a");
    assert.deepEqual(l.acquireLease("s1", { holderId: "b" }), { ok: true });
  });
}

Deno.test("sqlite: a handle whose lease was taken over cannot write the session; the other can", async () => {
  const clock = manualClock();
  await using pair = await leasedPair({ clock });
  const { holder: first, other: second } = pair;
  first.commitTurn("s1", turn("one"));
  assert.equal(
    lease(second).acquireLease("s1", { holderId: "b" }).ok,
    false,
    "refused while a is live",
  );
  clock.set(T0 + LEASE_STALE_MS + 1);
  assert.ok(lease(second).acquireLease("s1", { holderId: "b" }).ok);
  const lost =
    /Cannot write session s1: its writer lease was taken over by holder b/;
  assert.throws(() => first.commitTurn("s1", turn("two")), lost);
  assert.throws(() => first.allocateTurnKey("s1"), lost);
  assert.throws(() => first.recordCosts("s1", []), lost);
  assert.throws(() => first.setStatus("s1", "ended"), lost);
  assert.throws(
    () =>
      first.beginInvocation?.("s1", {
        purpose: "turn",
        provider: "openai",
        model: "m",
      }),
    lost,
  );
  second.commitTurn("s1", turn("three"));
  assert.deepEqual(
    second.load("s1")?.messages.filter((m) => m.role === "user").map((m) =>
      m.content[0]?.type === "text" ? m.content[0].text : ""
    ),
    ["one", "three"],
    "nothing of the lost writer interleaves",
  );
  // Readers never look at the lease.
  assert.equal(first.load("s1")?.messages.length, 4);
  assert.equal(first.list().length, 1);
});

Deno.test("sqlite: a holder's turns follow rows another connection wrote meanwhile (sequence numbers, title)", async () => {
  await using pair = await leasedPair();
  const { path, holder, other } = pair;
  holder.commitTurn("s1", turn("one"));
  holder.commitTurn("s1", turn("two"));
  // A handle without the lease may still write (the lease binds its
  // holders); the holder must not reuse the numbers it took.
  other.commitTurn("s1", turn("three"));
  const db = new DatabaseSync(path);
  try {
    db.exec("UPDATE agent_sessions SET title = NULL WHERE id = 's1'");
  } finally {
    db.close();
  }
  holder.commitTurn("s1", turn("four"));
  holder.commitTurn("s1", turn("five"));
  const loaded = holder.load("s1");
  assert.deepEqual(
    loaded?.messages.map((m) => m.sequenceNumber),
    Array.from({ length: 10 }, (_, i) => i),
    "gap-free, none taken twice",
  );
  assert.deepEqual(
    loaded?.messages.filter((m) => m.role === "user").map((m) =>
      m.content[0]?.type === "text" ? m.content[0].text : ""
    ),
    ["one", "two", "three", "four", "five"],
  );
  assert.equal(loaded?.record.title, "five", "a cleared title is set again");
});

Deno.test("sqlite: a tampered lease row is refused naming the column, nothing is written, and clearLease() removes it", async (t) => {
  const cases: Array<[string, string]> = [
    ["holder_id", "UPDATE relavium_session_leases SET holder_id = ''"],
    ["pid", "UPDATE relavium_session_leases SET pid = 'x'"],
    ["pid", "UPDATE relavium_session_leases SET pid = -1"],
    ["hostname", "UPDATE relavium_session_leases SET hostname = x'01'"],
    [
      "heartbeat_at",
      "UPDATE relavium_session_leases SET heartbeat_at = 'soon'",
    ],
    ["acquired_at", "UPDATE relavium_session_leases SET acquired_at = 1e300"],
  ];
  for (const [column, sql] of cases) {
    await t.step(`${column}: ${sql}`, async () => {
      await using pair = await leasedPair();
      const { path, other } = pair;
      const raw = new DatabaseSync(path);
      raw.exec("PRAGMA ignore_check_constraints = ON");
      raw.exec(sql);
      raw.close();
      const rows = (): unknown => {
        const db = new DatabaseSync(path, { readOnly: true });
        try {
          return db.prepare("SELECT * FROM relavium_session_leases").all();
        } finally {
          db.close();
        }
      };
      const snapshot = rows();
      const field = `relavium_session_leases.${column}`;
      const answer = lease(other).acquireLease("s1", { holderId: "b" });
      assert.ok(!answer.ok, "a damaged lease is never taken over");
      assert.equal(answer.heldBy.damaged, field);
      assert.equal(other.readLease?.("s1")?.damaged, field);
      assert.deepEqual(rows(), snapshot, "nothing was written");
      const removed = other.clearLease?.("s1");
      assert.equal(removed?.damaged, field);
      assert.deepEqual(rows(), []);
      assert.ok(lease(other).acquireLease("s1", { holderId: "b" }).ok);
    });
  }
});
