import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { listSqliteSessions } from "../../store/sqlite_list.ts";
import { openSqliteStore } from "../../store/sqlite_store.ts";
import { cost, deps, newSession, tempDir, turn } from "./_harness.ts";

Deno.test("listSqliteSessions() lists what store.list() lists, in its order, with the printed fields", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/history.db`;
  const store = openSqliteStore(path, deps());
  store.create(newSession("s1"));
  store.create({ ...newSession("s2"), modelId: "gpt-5.4-mini" });
  store.create(newSession("s3"));
  store.commitTurn("s1", turn("hi"));
  store.softDelete("s3");
  const want = store.list().map((r) => ({
    id: r.id,
    agentSlug: r.agentSlug,
    ...(r.title === undefined ? {} : { title: r.title }),
    status: r.status,
    ...(r.modelId === undefined ? {} : { modelId: r.modelId }),
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    totalCostMicrocents: r.totalCostMicrocents,
    unaccountedCalls: 0,
    turns: r.id === "s1" ? 1 : 0,
    engaged: r.id === "s1",
    workingDir: r.context.workingDir,
  }));
  store.close();
  const got = listSqliteSessions(path);
  assert.deepEqual(got, want);
  assert.deepEqual(got.map((r) => r.id), ["s1", "s2"]);
  assert.equal(got[0]?.title, "hi");
  assert.equal(got[1]?.modelId, "gpt-5.4-mini");
});

Deno.test("listSqliteSessions() adds each session's usage coverage: pending calls and unrecorded spend", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/history.db`;
  const store = openSqliteStore(path, deps());
  store.create(newSession("s1"));
  store.commitTurn("s1", turn("hi", { costs: [cost("m", 100)] }));
  const call = { purpose: "turn" as const, provider: "openai", model: "m" };
  store.beginInvocation?.("s1", call);
  const settled = store.beginInvocation?.("s1", call) ?? "";
  store.settleInvocation?.("s1", {
    id: settled,
    coverage: "priced",
    inputTokens: 1,
    outputTokens: 1,
    costMicrocents: 40,
  });
  store.close();
  const [s1] = listSqliteSessions(path);
  assert.equal(s1?.totalCostMicrocents, 140);
  assert.equal(s1?.unaccountedCalls, 1);
  const raw = new DatabaseSync(path);
  raw.exec("DROP TABLE relavium_open_invocations");
  raw.close();
  assert.equal(listSqliteSessions(path)[0]?.unaccountedCalls, 0, "older file");
});

Deno.test("listSqliteSessions() lists nothing from a file without the sessions table", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/history.db`;
  new DatabaseSync(path).close();
  assert.deepEqual(listSqliteSessions(path), []);
});

Deno.test("listSqliteSessions() refuses a corrupt row with invalid_record", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/history.db`;
  const store = openSqliteStore(path, deps());
  store.create(newSession("s1"));
  store.close();
  const db = new DatabaseSync(path);
  db.exec("PRAGMA ignore_check_constraints = ON");
  db.exec("UPDATE agent_sessions SET agent_slug = ''");
  db.close();
  assert.throws(() => listSqliteSessions(path), { code: "invalid_record" });
});
