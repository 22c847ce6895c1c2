/**
 * `load` reads message rows in pages (store/sqlite_store.ts): every row
 * comes back in sequence order across page boundaries, corruption on a
 * later page still fails the read, and should the file ever hold rows the
 * paging misses (a duplicate sequence number), the row count check falls
 * back to one query.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { SessionMessageBoundaryError } from "../../store/errors.ts";
import { reconstructSessionState } from "../../store/projection.ts";
import { MESSAGE_PAGE_ROWS } from "../../store/sqlite_statements.ts";
import { openSqliteStore } from "../../store/sqlite_store.ts";
import { deps, tempDir } from "./_harness.ts";
import { buildLargeSession } from "./_fixtures/large_session.ts";

Deno.test("load() returns every row in order across page boundaries", async (t) => {
  await using dir = await tempDir();
  const store = openSqliteStore(`${dir.path}/h.db`, deps());
  for (const rows of [MESSAGE_PAGE_ROWS, 2 * MESSAGE_PAGE_ROWS + 4, 8]) {
    await t.step(`${rows} rows`, () => {
      const id = `s${rows}`;
      buildLargeSession(store, id, rows);
      const loaded = store.load(id);
      assert.ok(loaded !== undefined);
      assert.deepEqual(
        loaded.messages.map((m) => m.sequenceNumber),
        Array.from({ length: rows }, (_, i) => i),
      );
      const state = reconstructSessionState(loaded.record, loaded.messages);
      assert.equal(state.turnCount, rows / 4);
    });
  }
});

Deno.test("load() fails the whole read on corruption in a later page", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/h.db`;
  const store = openSqliteStore(path, deps());
  buildLargeSession(store, "s1", 2 * MESSAGE_PAGE_ROWS);
  const raw = new DatabaseSync(path);
  try {
    raw.exec(
      `UPDATE session_messages SET content = 'other'
       WHERE sequence_number = ${MESSAGE_PAGE_ROWS + 500}`,
    );
  } finally {
    raw.close();
  }
  assert.throws(
    () => store.load("s1"),
    (e) =>
      e instanceof SessionMessageBoundaryError &&
      e.code === "metadata_mismatch",
  );
});

Deno.test("load() reads in one query when paging would miss a row", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/h.db`;
  const store = openSqliteStore(path, deps());
  buildLargeSession(store, "s1", 2 * MESSAGE_PAGE_ROWS);
  const raw = new DatabaseSync(path);
  const last = MESSAGE_PAGE_ROWS - 1;
  try {
    raw.exec("DROP INDEX idx_session_messages_seq");
    raw.exec(
      `INSERT INTO session_messages SELECT 'dup', session_id, sequence_number,
       role, content, content_parts, tool_calls, tool_call_id, name,
       finish_reason, model_id, created_at, compaction_dropped_through_sequence
       FROM session_messages WHERE sequence_number = ${last}`,
    );
  } finally {
    raw.close();
  }
  const loaded = store.load("s1");
  assert.ok(loaded !== undefined);
  assert.equal(loaded.messages.length, 2 * MESSAGE_PAGE_ROWS + 1);
  assert.equal(
    loaded.messages.filter((m) => m.sequenceNumber === last).length,
    2,
  );
});
