/**
 * Two `relavium serve` processes on one Postgres: instance B, which does
 * not hold a session A runs, reads its state from the shared event log.
 * B's `GET` mid-turn says it runs; B's `?until=idle` ends at A's
 * `server:idle` with every token once (and at once when nothing runs); an
 * approval A waits on is listed on B, and B refuses to answer it (423
 * naming A); after `kill -9` of A mid-turn, B stops saying it runs (A's
 * lease is stale: its process is gone on this host), B's waiting stream
 * ends, and B's takeover ends the dead turn in the log as failed.
 * Postgres comes from `tests/store/_pg.ts`.
 */
import assert from "node:assert/strict";
import { readToEnd, send, twoServers } from "./_pg_serve.ts";
import { pgUrlForFile } from "../store/_pg.ts";
import {
  call,
  type Frame,
  openSse,
  seqOf,
  type ServeChild,
  type SseReader,
  tokensOf,
} from "./_kit.ts";

const base = pgUrlForFile();

const WORDS = Array.from({ length: 10 }, (_, i) => `w${i} `);

/** Reads a stream to its end, failing after 20 s; its id'd frames. */
async function toEnd(r: SseReader): Promise<Frame[]> {
  return (await readToEnd(r)).filter((f) =>
    f.id !== undefined && f.event !== "server:heartbeat"
  );
}

Deno.test({
  name:
    "serve on Postgres: a server that does not hold a session shows its running turn and approvals from the shared log",
  ignore: base === undefined,
  async fn() {
    assert.ok(base !== undefined);
    await using servers = await twoServers(base, [
      "heartbeat_ms = 200",
    ], "serve-pg-state-");
    const { provider, a, b, gates } = servers;
    const { dir } = servers.pg;
    const created = await call(a, "POST", "/v1/sessions", {
      agent: "a.agent.yaml",
      mode: "accept-edits",
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = String(created.body["sessionId"]);
    const stateOn = async (s: ServeChild) => {
      const got = await call(s, "GET", `/v1/sessions/${id}`);
      assert.equal(got.status, 200, JSON.stringify(got.body));
      return got.body as {
        running: boolean;
        pendingApprovals: { requestId: string; toolId: string }[];
      };
    };

    // Nothing runs: B's ?until=idle ends at once.
    assert.equal((await stateOn(b)).running, false);
    const quiet = await openSse(b, id, { query: "?until=idle" });
    assert.deepEqual(await toEnd(quiet), []);

    // Turn 1 through A, held mid-turn: B says it runs, and B's
    // ?until=idle ends at A's server:idle with every token once.
    const gate1 = Promise.withResolvers<void>();
    gates.push(gate1);
    provider.push({ tokens: WORDS, gate: { after: 5, open: gate1.promise } });
    const first = await send(a, id, "one");
    const mid = await stateOn(b);
    assert.equal(mid.running, true);
    assert.deepEqual(mid.pendingApprovals, []);
    const waiting = await openSse(b, id, {
      query: "?until=idle",
      lastEventId: String(first.after),
    });
    await waiting.until((f) => tokensOf([f])[0] === "w2 ");
    assert.equal(waiting.ended(), false);
    gate1.resolve();
    const turn1 = await toEnd(waiting);
    assert.equal(turn1[0]?.id, first.eventId);
    assert.equal(turn1.at(-1)?.event, "server:idle");
    assert.equal(JSON.parse(turn1.at(-1)?.data ?? "{}").outcome, "completed");
    const seqs = turn1.map((f) => seqOf(f.id));
    seqs.forEach((n, i) =>
      assert.equal(n, (seqs[0] ?? 0) + i, `no gap, no repeat: ${seqs}`)
    );
    assert.equal(tokensOf(turn1).join(""), WORDS.join(""));
    assert.equal((await stateOn(b)).running, false);

    // Turn 2 through A waits on an approval: listed on B, refused there
    // (423 naming A), answered on A.
    provider.push({
      tool: {
        name: "write_file",
        args: { path: ".profile", content: "ok\n" },
      },
    });
    provider.push({ tokens: ["written"] });
    const second = await send(a, id, "two");
    const watch = await openSse(b, id, {
      lastEventId: String(second.after),
    });
    const asked = await watch.until((f) =>
      f.event === "server:approval_requested"
    );
    const requestId = String(
      JSON.parse(asked?.data ?? "{}").approval?.requestId,
    );
    const pending = await stateOn(b);
    assert.equal(pending.running, true);
    assert.deepEqual(
      pending.pendingApprovals.map((p) => [p.requestId, p.toolId]),
      [[requestId, "write_file"]],
    );
    // B's resync snapshot carries the same.
    const resynced = await openSse(b, id, { lastEventId: "elsewhere.1" });
    const snapshot = await resynced.until((f) => f.event === "server:resync");
    await resynced.close();
    const state = JSON.parse(snapshot?.data ?? "{}").state;
    assert.equal(state?.running, true);
    assert.deepEqual(
      state?.pendingApprovals.map((p: { requestId: string }) => p.requestId),
      [requestId],
    );
    const refused = await call(
      b,
      "POST",
      `/v1/sessions/${id}/approvals/${requestId}`,
      { decision: "once" },
    );
    assert.equal(refused.status, 423, JSON.stringify(refused.body));
    assert.equal(refused.body["code"], "session_busy");
    assert.match(String(refused.body["message"]), new RegExp(`${a.pid}`));
    const unknown = await call(
      b,
      "POST",
      `/v1/sessions/${id}/approvals/no-such-request`,
      { decision: "once" },
    );
    assert.equal(unknown.status, 404, JSON.stringify(unknown.body));
    const answered = await call(
      a,
      "POST",
      `/v1/sessions/${id}/approvals/${requestId}`,
      { decision: "once" },
    );
    assert.equal(answered.status, 200, JSON.stringify(answered.body));
    await watch.until((f) => f.event === "server:idle");
    await watch.close();
    assert.equal(await Deno.readTextFile(`${dir}/proj/.profile`), "ok\n");
    const after2 = await stateOn(b);
    assert.equal(after2.running, false);
    assert.deepEqual(after2.pendingApprovals, []);

    // Turn 3 through A, then kill -9 of A mid-turn: B stops saying it
    // runs and its waiting stream ends.
    const gate3 = Promise.withResolvers<void>();
    gates.push(gate3);
    provider.push({ tokens: WORDS, gate: { after: 3, open: gate3.promise } });
    const third = await send(a, id, "three");
    assert.equal((await stateOn(b)).running, true);
    const stuck = await openSse(b, id, {
      query: "?until=idle",
      lastEventId: String(third.after),
    });
    await stuck.until((f) => tokensOf([f])[0] === "w1 ");
    await a.stop("SIGKILL");
    gate3.resolve();
    const cut = await toEnd(stuck);
    assert.ok(!cut.some((f) => f.event === "server:idle"));
    assert.equal((await stateOn(b)).running, false);

    // B takes the session over: the dead turn ends in the log, failed,
    // before B's own turn.
    provider.push({ tokens: ["four"] });
    const fourth = await send(b, id, "four");
    const log = await openSse(b, id, {
      query: "?until=idle",
      lastEventId: String(third.after),
    });
    const rest = await toEnd(log);
    const idles = rest.filter((f) => f.event === "server:idle").map((f) =>
      JSON.parse(f.data ?? "{}").outcome
    );
    // The first idle (the dead turn's) ends this stream.
    assert.deepEqual(idles, ["failed"]);
    assert.ok(seqOf(rest.at(-1)?.id) < seqOf(String(fourth.eventId)));
    const turn4 = await toEnd(
      await openSse(b, id, {
        query: "?until=idle",
        lastEventId: String(fourth.after),
      }),
    );
    assert.deepEqual(tokensOf(turn4), ["four"]);
    assert.equal(JSON.parse(turn4.at(-1)?.data ?? "{}").outcome, "completed");
    const stopped = await b.stop("SIGTERM");
    assert.equal(stopped.code, 0, stopped.stderr);
  },
});
