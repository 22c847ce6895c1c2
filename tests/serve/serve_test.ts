/**
 * `relavium serve` as a child process against a loopback provider:
 * REST, the resumable stream, approvals, auth and the lease.
 */
import assert from "node:assert/strict";
import {
  call,
  fakeProvider,
  openSse,
  prepareFolder,
  seqOf,
  startServe,
  tokensOf,
} from "./_kit.ts";

const WORDS = Array.from({ length: 12 }, (_, i) => `w${i} `);

Deno.test("serve streams a turn with strictly increasing ids and resumes by Last-Event-ID", async () => {
  await using provider = fakeProvider();
  const dir = await Deno.makeTempDir({ prefix: "serve-" });
  const folder = await prepareFolder(dir, provider.url);
  await using server = await startServe(folder);
  assert.equal((await call(server, "GET", "/v1/health")).status, 200);
  const created = await call(server, "POST", "/v1/sessions", {
    agent: "a.agent.yaml",
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const id = created.body.sessionId as string;
  const gate = Promise.withResolvers<void>();
  provider.push({ tokens: WORDS, gate: { after: 5, open: gate.promise } });
  const watcher = await openSse(server, id, {
    lastEventId: created.body.lastEventId as string,
  });
  const dropped = await openSse(server, id, {
    lastEventId: created.body.lastEventId as string,
  });
  const sent = await call(server, "POST", `/v1/sessions/${id}/messages`, {
    text: "hi",
  });
  assert.equal(sent.status, 202);
  const busy = await call(server, "POST", `/v1/sessions/${id}/messages`, {
    text: "again",
  });
  assert.equal(busy.status, 409);
  assert.equal(busy.body.type, "error");
  // The dropped reader has seen some tokens, then goes away mid-turn.
  // (The adapter may hold the newest delta back: wait for an earlier one.)
  await dropped.until((f) => tokensOf([f])[0] === "w2 ");
  const lastSeen = dropped.frames.at(-1)?.id ?? "";
  await dropped.close();
  gate.resolve();
  await watcher.until((f) => f.event === "server:idle");
  const resumed = await openSse(server, id, {
    lastEventId: lastSeen,
    query: "?until=idle",
  });
  await resumed.until(() => false);
  assert.ok(resumed.ended());
  const all = watcher.frames.filter((f) => f.id !== undefined);
  const seqs = all.map((f) => seqOf(f.id));
  seqs.forEach((n, i) => assert.ok(i === 0 || n > (seqs[i - 1] ?? n)));
  assert.equal(watcher.frames[0]?.retry !== undefined, true);
  const got = [
    ...dropped.frames.filter((f) => f.id !== undefined),
    ...resumed.frames.filter((f) => f.id !== undefined),
  ].map((f) => f.id);
  assert.deepEqual(got, all.map((f) => f.id));
  assert.equal(tokensOf(watcher.frames).join(""), WORDS.join(""));
  await watcher.close();
  const stopped = await server.stop("SIGTERM");
  assert.equal(stopped.code, 0, stopped.stderr);
  await Deno.remove(dir, { recursive: true });
});
