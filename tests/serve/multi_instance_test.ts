/**
 * Two `relavium serve` processes on one Postgres (`[store] kind =
 * "postgres"`): a session driven through A streams live to a client of B;
 * the client drops and resumes on A with its last id, missing and
 * repeating nothing; a session left idle releases its lease and the other
 * instance takes it; while A runs a turn, B answers 423 naming A; after
 * `kill -9` of A mid-turn only whole turns are stored, and B takes the
 * session over (A's process is gone on this host) and continues it; an id
 * older than the events kept gets `server:resync`.
 * Postgres comes from `tests/store/_pg.ts`.
 */
import assert from "node:assert/strict";
import { send, twoServers } from "./_pg_serve.ts";
import { pgUrlForFile } from "../store/_pg.ts";
import {
  call,
  type Frame,
  newSession,
  openSse,
  seqOf,
  type ServeChild,
  tokensOf,
} from "./_kit.ts";

const base = pgUrlForFile();

const WORDS = Array.from({ length: 10 }, (_, i) => `m${i} `);

/** Reads `s`'s stream of `id` from `after` until the turn's `server:idle`. */
async function untilIdle(
  s: ServeChild,
  id: string,
  after: string,
): Promise<Frame[]> {
  const r = await openSse(s, id, { lastEventId: after });
  await r.until((f) => f.event === "server:idle");
  await r.close();
  const framed = r.frames.filter((f) => f.id !== undefined);
  return framed.slice(
    0,
    framed.findIndex((f) => f.event === "server:idle") + 1,
  );
}

Deno.test({
  name:
    "two serve instances on one Postgres: live on B, resume on A, idle release, 423, kill -9 and takeover",
  ignore: base === undefined,
  async fn() {
    assert.ok(base !== undefined);
    await using servers = await twoServers(base, [
      "idle_release_ms = 300",
      "events_kept = 20",
    ], "serve-pg-");
    const { provider, a, b, gates } = servers;
    const { admin, schema } = servers.pg;
    const id = await newSession(a);

    // Turn 1 through A, watched live on B; B's client drops mid-turn.
    const gate1 = Promise.withResolvers<void>();
    gates.push(gate1);
    provider.push({ tokens: WORDS, gate: { after: 5, open: gate1.promise } });
    const onB = await openSse(b, id);
    const first = await send(a, id, "one");
    await onB.until((f) => tokensOf([f])[0] === "m2 ");
    const framedOnB = onB.frames.filter((f) => f.id !== undefined);
    await onB.close();
    // B saw the turn from its start (after what a resume of the session,
    // idle-released meanwhile, logged before it).
    const start = framedOnB.findIndex((f) => f.id === first.eventId);
    assert.ok(start >= 0, JSON.stringify(framedOnB));
    const seenOnB = framedOnB.slice(start);
    const lastSeen = seenOnB.at(-1)?.id ?? "";
    gate1.resolve();
    // The client resumes on A with its last id.
    const onA = await untilIdle(a, id, lastSeen);
    const ids = [...seenOnB, ...onA].map((f) => f.id ?? "");
    const stream = ids[0]?.split(".")[0];
    assert.ok(ids.every((i) => i.split(".")[0] === stream), ids.join(" "));
    const seqs = ids.map((i) => seqOf(i));
    seqs.forEach((n, i) =>
      assert.equal(n, (seqs[0] ?? 0) + i, `no gap, no repeat: ${seqs}`)
    );
    assert.equal(tokensOf([...seenOnB, ...onA]).join(""), WORDS.join(""));
    // The same turn read whole from B's table-fed log: the same ids.
    const wholeOnB = await untilIdle(b, id, String(first.after));
    assert.deepEqual(
      wholeOnB.map((f) => f.id),
      ids,
      JSON.stringify(wholeOnB.map((f) => f.event)),
    );

    // A releases the idle session; B takes it for turn 2.
    const leaseGone = async (): Promise<void> => {
      for (let i = 0; i < 200; i++) {
        const rows = await admin.unsafe(
          `SELECT 1 FROM ${schema}.relavium_session_leases WHERE session_id = $1`,
          [id],
        );
        if (rows.length === 0) return;
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.fail("the idle lease was never released");
    };
    await leaseGone();
    provider.push({ tokens: ["two"] });
    const second = await send(b, id, "two");
    const turn2 = await untilIdle(a, id, String(second.after));
    assert.deepEqual(tokensOf(turn2), ["two"]);
    await leaseGone();

    // Turn 3 through A, held mid-turn: B refuses with 423 naming A.
    const gate3 = Promise.withResolvers<void>();
    gates.push(gate3);
    provider.push({ tokens: WORDS, gate: { after: 4, open: gate3.promise } });
    const watch = await openSse(b, id);
    await send(a, id, "three");
    await watch.until((f) => tokensOf([f])[0] === "m1 ");
    const held = await call(b, "POST", `/v1/sessions/${id}/messages`, {
      text: "not now",
    });
    assert.equal(held.status, 423, JSON.stringify(held.body));
    assert.match(String(held.body.message), new RegExp(`${a.pid}`));

    // kill -9 of A mid-turn: whole turns only.
    await a.stop("SIGKILL");
    gate3.resolve();
    await watch.close();
    const roles = async (): Promise<string[]> =>
      (await admin.unsafe(
        `SELECT role FROM ${schema}.session_messages WHERE session_id = $1
         ORDER BY sequence_number`,
        [id],
      )).map((r) => String(r["role"]));
    assert.deepEqual(await roles(), [
      "user",
      "assistant",
      "user",
      "assistant",
    ]);

    // B takes the session over (its holder's process is gone) and
    // continues it.
    provider.push({ tokens: ["four"] });
    const fourth = await send(b, id, "four");
    const turn4 = await untilIdle(b, id, String(fourth.after));
    assert.deepEqual(tokensOf(turn4), ["four"]);
    assert.equal(
      JSON.parse(turn4.at(-1)?.data ?? "{}").outcome,
      "completed",
    );
    assert.deepEqual(
      (await roles()).length,
      6,
      JSON.stringify(turn4.map((f) => f.event)),
    );
    // The per-turn figures, read back from Postgres through B.
    const shown = await call(b, "GET", `/v1/sessions/${id}`);
    const usage = (shown.body["session"] as Record<string, unknown>)[
      "turnUsage"
    ] as { turnNumber: number }[];
    // Turn 3 died before its commit (its number stays used).
    assert.deepEqual(usage.map((t) => t.turnNumber), [1, 2, 4]);
    // The table keeps the last 20 events: an id before them resyncs.
    const kept = await admin.unsafe(
      `SELECT count(*)::int AS n FROM ${schema}.relavium_session_events
       WHERE session_id = $1`,
      [id],
    );
    assert.equal(kept[0]?.["n"], 20);
    const old = await openSse(b, id, { lastEventId: `${stream}.1` });
    await old.until((f) => f.event !== undefined);
    await old.close();
    assert.equal(old.frames.find((f) => f.event)?.event, "server:resync");
    const stopped = await b.stop("SIGTERM");
    assert.equal(stopped.code, 0, stopped.stderr);
    // The URL's password is in no stored row (events included) and in
    // nothing either instance printed.
    const password = decodeURIComponent(new URL(base).password);
    assert.ok(password.length >= 8, "the test server has a password");
    const tables = await admin.unsafe(
      `SELECT table_name FROM information_schema.tables
       WHERE table_schema = $1`,
      [schema],
    );
    assert.ok(tables.length > 0);
    for (const t of tables) {
      const name = String(t["table_name"]);
      const rows = await admin.unsafe(
        `SELECT t::text AS r FROM ${schema}."${name}" t`,
      );
      for (const r of rows) {
        assert.ok(!String(r["r"]).includes(password), `a row of ${name}`);
      }
    }
    const killed = await a.stop("SIGKILL");
    assert.ok(!stopped.stderr.includes(password), "B printed it");
    assert.ok(!killed.stderr.includes(password), "A printed it");
  },
});
