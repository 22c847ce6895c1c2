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

async function session(
  server: { url: string; token: string },
  body: Record<string, unknown> = { agent: "a.agent.yaml" },
): Promise<{ id: string; lastEventId: string }> {
  const created = await call(server, "POST", "/v1/sessions", body);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return {
    id: String(created.body.sessionId),
    lastEventId: String(created.body.lastEventId),
  };
}

Deno.test("serve answers an id from before a restart with one server:resync, then goes on live", async () => {
  await using provider = fakeProvider();
  const dir = await Deno.makeTempDir({ prefix: "serve-" });
  const folder = await prepareFolder(dir, provider.url);
  const first = await startServe(folder);
  const { id, lastEventId } = await session(first);
  provider.push({ tokens: ["one ", "turn"] });
  const watch = await openSse(first, id, { lastEventId });
  assert.equal(
    (await call(first, "POST", `/v1/sessions/${id}/messages`, { text: "hi" }))
      .status,
    202,
  );
  const idle = await watch.until((f) => f.event === "server:idle");
  // A turn still runs when the server is told to stop: it ends as a chat's
  // does on a signal, and the server exits 0.
  const never = Promise.withResolvers<void>();
  provider.push({
    tokens: ["x ", "y ", "z"],
    gate: { after: 2, open: never.promise },
  });
  await call(first, "POST", `/v1/sessions/${id}/messages`, { text: "hang" });
  await watch.until((f) =>
    f.event === "agent:token" && f.data?.includes('"x "') === true
  );
  const stopped = await first.stop("SIGINT");
  assert.equal(stopped.code, 0, stopped.stderr);
  await watch.until(() => false);
  assert.ok(watch.frames.some((f) => f.event === "session:cancelled"));
  never.resolve();
  await using second = await startServe(folder);
  const again = await openSse(second, id, { lastEventId: idle?.id ?? "" });
  const resync = await again.until((f) => f.event === "server:resync");
  const state = JSON.parse(resync?.data ?? "{}").state;
  assert.equal(state.running, false);
  assert.deepEqual(
    state.session.turns.map((t: { assistant: string }) => t.assistant),
    ["one turn"],
  );
  // Live afterwards: a new turn on the restarted server streams to it.
  provider.push({ tokens: ["two"] });
  assert.equal(
    (await call(second, "POST", `/v1/sessions/${id}/messages`, {
      text: "more",
    }))
      .status,
    202,
  );
  await again.until((f) => f.event === "server:idle");
  assert.deepEqual(tokensOf(again.frames), ["two"]);
  assert.equal(
    again.frames.filter((f) => f.event === "server:resync").length,
    1,
  );
  await again.close();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("serve drops a reader that stops reading; it resumes with nothing lost or repeated", async () => {
  await using provider = fakeProvider();
  const dir = await Deno.makeTempDir({ prefix: "serve-" });
  const folder = await prepareFolder(dir, provider.url);
  await using server = await startServe(folder);
  const { id, lastEventId } = await session(server);
  // About 6 MB of tokens: more than the socket buffers and a client's queue.
  const big = Array.from(
    { length: 400 },
    (_, i) => `${String(i).padStart(4, "0")}${"x".repeat(16_000)} `,
  );
  provider.push({ tokens: big });
  const watcher = await openSse(server, id, { lastEventId });
  const slow = await openSse(server, id, { lastEventId });
  await call(server, "POST", `/v1/sessions/${id}/messages`, { text: "hi" });
  await watcher.until((f) => f.event === "server:idle");
  // The slow reader now reads what reached it, then finds its stream cut.
  await slow.until(() => false);
  assert.ok(slow.ended());
  assert.equal(
    slow.frames.some((f) => f.event === "server:idle"),
    false,
    "the slow reader was dropped before the end",
  );
  const last = slow.frames.filter((f) => f.id !== undefined).at(-1)?.id;
  const resumed = await openSse(server, id, {
    lastEventId: last ?? lastEventId,
    query: "?until=idle",
  });
  await resumed.until(() => false);
  const ids = (frames: typeof slow.frames) =>
    frames.filter((f) => f.id !== undefined && f.event !== "server:heartbeat")
      .map((f) => f.id);
  assert.deepEqual(
    [...ids(slow.frames), ...ids(resumed.frames)],
    ids(watcher.frames),
  );
  assert.equal(tokensOf(watcher.frames).join(""), big.join(""));
  await watcher.close();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("serve: in accept-edits a protected write waits for its approval, the POST answers it, the tool runs", async () => {
  await using provider = fakeProvider();
  const dir = await Deno.makeTempDir({ prefix: "serve-" });
  const folder = await prepareFolder(dir, provider.url);
  await using server = await startServe(folder);
  const { id, lastEventId } = await session(server, {
    agent: "a.agent.yaml",
    mode: "accept-edits",
  });
  provider.push({
    tool: { name: "write_file", args: { path: ".profile", content: "ok\n" } },
  });
  provider.push({ tokens: ["written"] });
  const watch = await openSse(server, id, { lastEventId });
  await call(server, "POST", `/v1/sessions/${id}/messages`, { text: "go" });
  const asked = await watch.until((f) =>
    f.event === "server:approval_requested"
  );
  const approval = JSON.parse(asked?.data ?? "{}").approval;
  assert.equal(approval.toolId, "write_file");
  const pending = await call(server, "GET", `/v1/sessions/${id}`);
  assert.equal(pending.body.running, true);
  assert.equal((pending.body.pendingApprovals as unknown[]).length, 1);
  const answered = await call(
    server,
    "POST",
    `/v1/sessions/${id}/approvals/${approval.requestId}`,
    { decision: "once" },
  );
  assert.equal(answered.status, 200);
  await watch.until((f) => f.event === "server:idle");
  const result = watch.frames.find((f) => f.event === "agent:tool_result");
  assert.equal(JSON.parse(result?.data ?? "{}").success, true);
  assert.equal(await Deno.readTextFile(`${dir}/proj/.profile`), "ok\n");
  // Cancelled, then resumed by the next message: still in accept-edits, so
  // a plain write runs unasked.
  await call(server, "POST", `/v1/sessions/${id}/cancel`);
  await watch.until((f) => f.event === "session:cancelled");
  const before = watch.frames.length;
  provider.push({
    tool: { name: "write_file", args: { path: "notes.txt", content: "n\n" } },
  });
  provider.push({ tokens: ["noted"] });
  await call(server, "POST", `/v1/sessions/${id}/messages`, { text: "note" });
  await watch.until((f) =>
    f.event === "server:idle" && watch.frames.indexOf(f) >= before
  );
  assert.equal(
    watch.frames.slice(before).some((f) =>
      f.event === "server:approval_requested"
    ),
    false,
  );
  assert.equal(await Deno.readTextFile(`${dir}/proj/notes.txt`), "n\n");
  await watch.close();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("serve: idempotent messages, abort, list, export, cancel, delete and the OpenAPI document", async () => {
  await using provider = fakeProvider();
  const dir = await Deno.makeTempDir({ prefix: "serve-" });
  const folder = await prepareFolder(dir, provider.url);
  await using server = await startServe(folder);
  const openapi = await call(server, "GET", "/openapi.json");
  assert.equal(openapi.status, 200);
  assert.ok(
    Object.keys(openapi.body.paths as object).includes(
      "/v1/sessions/{id}/events",
    ),
  );
  const { id, lastEventId } = await session(server);
  const gate = Promise.withResolvers<void>();
  provider.push({
    tokens: ["a ", "b ", "c "],
    gate: { after: 1, open: gate.promise },
  });
  const watch = await openSse(server, id, { lastEventId });
  const first = await call(server, "POST", `/v1/sessions/${id}/messages`, {
    text: "hi",
    idempotencyKey: "k1",
  });
  const repeat = await call(server, "POST", `/v1/sessions/${id}/messages`, {
    text: "hi",
    idempotencyKey: "k1",
  });
  assert.equal(repeat.status, 202);
  assert.deepEqual(repeat.body, first.body);
  await watch.until((f) => f.event === "session:turn_started");
  const aborted = await call(server, "POST", `/v1/sessions/${id}/abort`);
  assert.equal(aborted.body.aborted, true);
  const idle = await watch.until((f) => f.event === "server:idle");
  assert.equal(JSON.parse(idle?.data ?? "{}").outcome, "aborted");
  gate.resolve();
  provider.push({ tokens: ["done"] });
  await call(server, "POST", `/v1/sessions/${id}/messages`, { text: "again" });
  await watch.until((f) => f.event === "server:idle" && f !== idle);
  const listed = await call(server, "GET", "/v1/sessions");
  assert.deepEqual(
    (listed.body.sessions as Array<{ sessionId: string }>).map((s) =>
      s.sessionId
    ),
    [id],
  );
  const exported = await fetch(`${server.url}/v1/sessions/${id}/export`, {
    headers: { authorization: `Bearer ${server.token}` },
  });
  assert.equal(exported.status, 200);
  assert.match(await exported.text(), /done/);
  assert.equal(
    (await call(server, "POST", `/v1/sessions/${id}/cancel`)).body.cancelled,
    true,
  );
  await watch.until((f) => f.event === "session:cancelled");
  assert.equal(
    (await call(server, "DELETE", `/v1/sessions/${id}`)).status,
    200,
  );
  assert.equal((await call(server, "GET", `/v1/sessions/${id}`)).status, 404);
  await watch.close();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("serve [serve] settings: an unanswered approval is rejected, heartbeats are events, CORS only for listed origins, a client cap", async () => {
  await using provider = fakeProvider();
  const dir = await Deno.makeTempDir({ prefix: "serve-" });
  const folder = await prepareFolder(dir, provider.url, [
    "approval_timeout_ms = 300",
    "heartbeat_ms = 100",
    'cors_origins = ["https://app.example"]',
    "max_clients_per_session = 2",
  ]);
  await using server = await startServe(folder);
  const { id, lastEventId } = await session(server, {
    agent: "a.agent.yaml",
    mode: "accept-edits",
  });
  provider.push({
    tool: { name: "write_file", args: { path: ".profile", content: "no\n" } },
  });
  const watch = await openSse(server, id, { lastEventId });
  await call(server, "POST", `/v1/sessions/${id}/messages`, { text: "go" });
  const resolved = await watch.until((f) =>
    f.event === "server:approval_resolved"
  );
  assert.deepEqual(
    [
      JSON.parse(resolved?.data ?? "{}").by,
      JSON.parse(resolved?.data ?? "{}").decision,
    ],
    ["timeout", "reject"],
  );
  await watch.until((f) => f.event === "server:idle");
  const result = watch.frames.find((f) => f.event === "agent:tool_result");
  assert.equal(JSON.parse(result?.data ?? "{}").success, false);
  await assert.rejects(Deno.stat(`${dir}/proj/.profile`));
  const beat = await watch.until((f) => f.event === "server:heartbeat");
  assert.match(beat?.id ?? "", /^[0-9a-f]+\.\d+$/);
  // A third stream of the session is refused.
  const second = await openSse(server, id);
  const third = await openSse(server, id);
  assert.equal(third.status, 429);
  await third.close();
  await second.close();
  await watch.close();
  // CORS: the listed origin gets its headers; no other origin does.
  const pre = await fetch(`${server.url}/v1/sessions`, {
    method: "OPTIONS",
    headers: { origin: "https://app.example" },
  });
  await pre.body?.cancel();
  assert.equal(pre.status, 204);
  assert.equal(
    pre.headers.get("access-control-allow-origin"),
    "https://app.example",
  );
  const listed = await fetch(`${server.url}/v1/sessions`, {
    headers: {
      origin: "https://app.example",
      authorization: `Bearer ${server.token}`,
    },
  });
  await listed.body?.cancel();
  assert.equal(
    listed.headers.get("access-control-allow-origin"),
    "https://app.example",
  );
  const same = await fetch(`${server.url}/v1/sessions`, {
    headers: { authorization: `Bearer ${server.token}` },
  });
  await same.body?.cancel();
  assert.equal(same.headers.get("access-control-allow-origin"), null);
  await Deno.remove(dir, { recursive: true });
});
