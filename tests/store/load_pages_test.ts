/**
 * `load` reads message rows in pages (store/sqlite_store.ts): every row
 * comes back in sequence order across page boundaries, corruption on a
 * later page still fails the read, and should the file ever hold rows the
 * paging misses (a duplicate sequence number), the row count check falls
 * back to one query. Pages are read lean (six values a row) while every row
 * is regular; a page with any other row is read again with every column,
 * with the same result as one full query.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { SessionMessageBoundaryError } from "../../store/errors.ts";
import { reconstructSessionState } from "../../store/projection.ts";
import { STORE_DDL } from "../../store/ddl.ts";
import {
  decodeMessageRow,
  type MessageRow,
} from "../../store/message_codec.ts";
import {
  MESSAGE_COLUMN_ORDER,
  MESSAGE_PAGE_ROWS,
} from "../../store/sqlite_statements.ts";
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
  execRaw(
    path,
    `UPDATE session_messages SET content = 'other'
     WHERE sequence_number = ${MESSAGE_PAGE_ROWS + 500}`,
  );
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
  const last = MESSAGE_PAGE_ROWS - 1;
  execRaw(
    path,
    `DROP INDEX idx_session_messages_seq;
     INSERT INTO session_messages SELECT 'dup', session_id, sequence_number,
     role, content, content_parts, tool_calls, tool_call_id, name,
     finish_reason, model_id, created_at, compaction_dropped_through_sequence
     FROM session_messages WHERE sequence_number = ${last}`,
  );
  const loaded = store.load("s1");
  assert.ok(loaded !== undefined);
  assert.equal(loaded.messages.length, 2 * MESSAGE_PAGE_ROWS + 1);
  assert.equal(
    loaded.messages.filter((m) => m.sequenceNumber === last).length,
    2,
  );
});

/** Runs `sql` on its own connection to the file (as another process would). */
function execRaw(
  path: string,
  sql: string,
  options: { enableForeignKeyConstraints?: boolean } = {},
): void {
  const raw = new DatabaseSync(path, options);
  try {
    raw.exec(sql);
  } finally {
    raw.close();
  }
}

/** Every row of `sessionId` decoded from one full-column query. */
function decodeAllColumns(path: string, sessionId: string): unknown[] {
  const raw = new DatabaseSync(path);
  try {
    const rows = raw.prepare(
      `SELECT ${MESSAGE_COLUMN_ORDER.join(", ")} FROM session_messages
       WHERE session_id = ? ORDER BY sequence_number`,
    ).all(sessionId);
    const memo = { epoch: Number.NaN, iso: "" };
    return rows.map((r) => decodeMessageRow(r as unknown as MessageRow, memo));
  } finally {
    raw.close();
  }
}

Deno.test("load() reads a page with any irregular row again with every column", async (t) => {
  await using dir = await tempDir();
  const path = `${dir.path}/h.db`;
  const store = openSqliteStore(path, deps());
  buildLargeSession(store, "s1", 3 * MESSAGE_PAGE_ROWS);
  const second = MESSAGE_PAGE_ROWS + 400;
  const edits: Array<[string, string]> = [
    ["a marker in a later page", ""],
    [
      "metadata that matches the body",
      `UPDATE session_messages
       SET content = json_extract(content_parts, '$[0].text')
       WHERE sequence_number = ${second + 3}`,
    ],
  ];
  for (const [name, sql] of edits) {
    await t.step(name, () => {
      if (sql === "") {
        store.appendMarker?.("s1", {
          summary: "earlier turns",
          keptTurnCount: 2,
        });
      } else {
        execRaw(path, sql);
      }
      const loaded = store.load("s1");
      assert.ok(loaded !== undefined);
      assert.deepEqual(loaded.messages, decodeAllColumns(path, "s1"));
    });
  }
});

Deno.test("load() keeps a row's own session_id and role when they differ in bytes only", async (t) => {
  await using dir = await tempDir();
  const path = `${dir.path}/h.db`;
  // A file whose session_id compares case-insensitively (not our DDL, but
  // `CREATE … IF NOT EXISTS` keeps whatever a file declares).
  const ddl = STORE_DDL.find((s) => s.includes("`session_messages` ("));
  assert.ok(ddl !== undefined);
  execRaw(
    path,
    ddl.replace(
      "`session_id` text NOT NULL",
      "`session_id` text NOT NULL COLLATE NOCASE",
    ),
  );
  const store = openSqliteStore(path, deps());
  buildLargeSession(store, "s1", 8);
  execRaw(
    path,
    "UPDATE session_messages SET session_id = 'S1' WHERE sequence_number = 5",
    { enableForeignKeyConstraints: false },
  );
  await t.step("session_id", () => {
    const loaded = store.load("s1");
    assert.ok(loaded !== undefined);
    assert.deepEqual(
      loaded.messages.map((m) => m.sessionId),
      ["s1", "s1", "s1", "s1", "s1", "S1", "s1", "s1"],
    );
  });
  await t.step("role", () => {
    execRaw(
      path,
      "UPDATE session_messages SET role = 'User' WHERE sequence_number = 4",
    );
    assert.throws(
      () => store.load("s1"),
      (e) =>
        e instanceof SessionMessageBoundaryError &&
        e.code === "invalid_message",
    );
  });
  store.close();
});
