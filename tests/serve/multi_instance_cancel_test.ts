/**
 * Two `relavium serve` processes on one Postgres: a turn A runs ends in
 * the shared log when A ends it, by a cancel or on SIGTERM. The turn's
 * end and its `server:idle` (outcome `cancelled`) are written while A
 * still holds the lease, so the `?until=idle` streams on A and B end on
 * that `server:idle` (not at a heartbeat), B says nothing runs, and B's
 * takeover finds no dead turn to end. While A runs a turn, B refuses to
 * delete the session (423 naming A). Postgres comes from
 * `tests/store/_pg.ts`.
 */
import assert from "node:assert/strict";
import { readToEnd, send, twoServers } from "./_pg_serve.ts";
import { pgUrlForFile } from "../store/_pg.ts";
import {
  call,
  type Frame,
  newSession,
  openSse,
  type ServeChild,
  type SseReader,
  tokensOf,
} from "./_kit.ts";

const base = pgUrlForFile();

const WORDS = Array.from({ length: 10 }, (_, i) => `w${i} `);

/** Reads a stream to its end, failing after 20 s; every frame. */
async function toEnd(r: SseReader): Promise<Frame[]> {
  return (await readToEnd(r)).filter((f) => f.event !== undefined);
}

/** The stream ended on a `server:idle` of this outcome. */
function endsIdle(frames: Frame[], outcome: string, where: string): void {
  const last = frames.at(-1);
  assert.equal(
    last?.event,
    "server:idle",
    `${where}: ${frames.map((f) => f.event).slice(-5)}`,
  );
  assert.equal(JSON.parse(last?.data ?? "{}").outcome, outcome, where);
}

async function runningOn(s: ServeChild, id: string): Promise<boolean> {
  const got = await call(s, "GET", `/v1/sessions/${id}`);
  assert.equal(got.status, 200, JSON.stringify(got.body));
  return got.body["running"] === true;
}

Deno.test({
  name:
    "serve on Postgres: a cancelled turn ends in the shared log, on both servers' streams",
  ignore: base === undefined,
  async fn() {
    assert.ok(base !== undefined);
    await using servers = await twoServers(base, [
      "heartbeat_ms = 300",
    ], "serve-pg-cancel-");
    const { provider, a, b, gates } = servers;
    const { admin, schema } = servers.pg;
    const id = await newSession(a);
    const tail = async () =>
      (await admin.unsafe(
        `SELECT type, data FROM ${schema}.relavium_session_events
         WHERE session_id = $1 ORDER BY seq DESC LIMIT 1`,
        [id],
      ))[0] as { type: string; data: unknown } | undefined;

    // A turn through A, held mid-turn; B cannot delete the session.
    const gate = Promise.withResolvers<void>();
    gates.push(gate);
    provider.push({ tokens: WORDS, gate: { after: 3, open: gate.promise } });
    const first = await send(a, id, "one");
    const kept = await call(b, "DELETE", `/v1/sessions/${id}`);
    assert.equal(kept.status, 423, JSON.stringify(kept.body));
    assert.equal(kept.body["code"], "session_busy");
    assert.match(String(kept.body["message"]), new RegExp(`${a.pid}`));
    const onB = await openSse(b, id, {
      query: "?until=idle",
      lastEventId: String(first.after),
    });
    const onA = await openSse(a, id, {
      query: "?until=idle",
      lastEventId: String(first.after),
    });
    await onB.until((f) => tokensOf([f])[0] === "w1 ");

    // Cancelled on A: both streams end on the turn's server:idle.
    const cancelled = await call(a, "POST", `/v1/sessions/${id}/cancel`);
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    endsIdle(await toEnd(onA), "cancelled", "A");
    endsIdle(await toEnd(onB), "cancelled", "B");
    const last = await tail();
    assert.equal(last?.type, "server:idle");
    assert.equal(await runningOn(b, id), false);
    assert.equal(await runningOn(a, id), false);
    // Still stored: B's refused delete left it.
    const shown = await call(b, "GET", `/v1/sessions/${id}`);
    assert.notEqual(shown.body["session"], null);

    // B takes it over: no dead turn to end, its own turn completes.
    provider.push({ tokens: ["two"] });
    const second = await send(b, id, "two");
    const next = await toEnd(
      await openSse(b, id, {
        query: "?until=idle",
        lastEventId: String(first.after),
      }),
    );
    // The first idle (the cancelled turn's) ends this stream.
    endsIdle(next, "cancelled", "B after the takeover");
    const turn2 = await toEnd(
      await openSse(b, id, {
        query: "?until=idle",
        lastEventId: String(second.after),
      }),
    );
    assert.deepEqual(tokensOf(turn2), ["two"]);
    endsIdle(turn2, "completed", "B's turn");

    // A turn through B, held; SIGTERM of B ends it in the log.
    const gate2 = Promise.withResolvers<void>();
    gates.push(gate2);
    provider.push({ tokens: WORDS, gate: { after: 3, open: gate2.promise } });
    const third = await send(b, id, "three");
    const watch = await openSse(a, id, {
      query: "?until=idle",
      lastEventId: String(third.after),
    });
    await watch.until((f) => tokensOf([f])[0] === "w1 ");
    const stopped = await b.stop("SIGTERM");
    assert.equal(stopped.code, 0, stopped.stderr);
    endsIdle(await toEnd(watch), "cancelled", "A after B's SIGTERM");
    assert.equal((await tail())?.type, "server:idle");
    assert.equal(await runningOn(a, id), false);
  },
});
