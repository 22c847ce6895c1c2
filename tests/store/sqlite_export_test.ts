/** The export handle: a session's row without its context, and the mark. */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { SessionRecordError } from "../../store/errors.ts";
import { openSqliteForExport } from "../../store/sqlite_open.ts";
import { openSqliteStore } from "../../store/sqlite_store.ts";
import { deps, newSession, tempDir, turn } from "./_harness.ts";

Deno.test("loadHeader() is load() without the context, and an export handle marks the export", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/h.db`;
  const store = openSqliteStore(path, deps());
  store.create(newSession());
  store.commitTurn("s1", turn("hello"));
  const whole = store.load("s1");
  store.close();
  assert.ok(whole !== undefined);
  const handle = openSqliteForExport(path, deps());
  try {
    const { context: _, ...header } = whole.record;
    assert.deepEqual(handle.loadHeader("s1"), {
      record: header,
      messages: whole.messages,
    });
    assert.equal(handle.loadHeader("nope"), undefined);
    handle.markExported("s1", "/w/s1.relavium.yaml");
  } finally {
    handle.close();
  }
  const again = openSqliteStore(path, deps());
  assert.equal(again.load("s1")?.record.status, "exported");
  again.close();
});

Deno.test("loadHeader() reads no context, and names every other damaged column as load() does", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/h.db`;
  const store = openSqliteStore(path, deps());
  store.create(newSession());
  store.close();
  const raw = new DatabaseSync(path);
  const handle = openSqliteForExport(path, deps());
  try {
    raw.exec(`UPDATE agent_sessions SET context_json = '{"workingDir":""}'`);
    raw.exec("CREATE TEMP TABLE pristine AS SELECT * FROM agent_sessions");
    raw.exec("PRAGMA ignore_check_constraints = ON");
    assert.equal(handle.loadHeader("s1")?.record.id, "s1");
    for (
      const [set, field] of [
        ["total_input_tokens = 1.5", "agent_sessions.total_input_tokens"],
        ["agent_snapshot = '['", "agent_sessions.agent_snapshot"],
        ["status = 'odd'", "agent_sessions.status"],
      ]
    ) {
      raw.exec(`UPDATE agent_sessions SET ${set}`);
      assert.throws(
        () => handle.loadHeader("s1"),
        (e) => e instanceof SessionRecordError && e.field === field,
        set,
      );
      raw.exec("PRAGMA foreign_keys = OFF");
      raw.exec("DELETE FROM agent_sessions");
      raw.exec("INSERT INTO agent_sessions SELECT * FROM pristine");
    }
  } finally {
    handle.close();
    raw.close();
  }
});
