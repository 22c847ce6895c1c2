/** The ddl.ts internals, case by case. */
import assert from "node:assert/strict";
import {
  missingColumns,
  missingColumnsOfExisting,
  referencesModelCatalog,
  schemaProblems,
  STORE_DDL,
  upgradeJournal,
} from "../../store/ddl.ts";
import { DatabaseSync } from "node:sqlite";

Deno.test("missingColumns() finds none in a fresh schema", () => {
  const db = new DatabaseSync(":memory:");
  for (const sql of STORE_DDL) db.exec(sql);
  assert.deepEqual(missingColumns(db), []);
  db.close();
});

Deno.test("referencesModelCatalog() finds no catalog keys in our own schema", () => {
  const db = new DatabaseSync(":memory:");
  for (const sql of STORE_DDL) db.exec(sql);
  assert.equal(
    referencesModelCatalog(db, {
      table: "session_messages",
      column: "model_id",
    }),
    false,
  );
  db.close();
});

Deno.test("schemaProblems() names an extra NOT NULL column", () => {
  const db = new DatabaseSync(":memory:");
  for (const sql of STORE_DDL) db.exec(sql);
  assert.deepEqual(schemaProblems(db), []);
  db.exec(
    "ALTER TABLE agent_sessions ADD COLUMN owner text NOT NULL DEFAULT 'x'",
  );
  db.exec("PRAGMA user_version = 7");
  assert.deepEqual(schemaProblems(db), [
    "user_version is 7, newer than this version's 0",
  ]);
  db.close();
});

Deno.test("missingColumnsOfExisting() names a renamed column", () => {
  const db = new DatabaseSync(":memory:");
  for (const sql of STORE_DDL) db.exec(sql);
  db.exec("ALTER TABLE agent_sessions RENAME COLUMN title TO name");
  assert.deepEqual(missingColumnsOfExisting(db), ["agent_sessions.title"]);
  db.close();
});

Deno.test("upgradeJournal() moves an open call and drops a recorded one", () => {
  const db = new DatabaseSync(":memory:");
  for (const sql of STORE_DDL) db.exec(sql);
  db.exec(
    "INSERT INTO agent_sessions (id, agent_slug, created_at, updated_at) VALUES ('s', 'a', 0, 0)",
  );
  db.exec(
    "CREATE TABLE relavium_invocations (id text PRIMARY KEY, session_id text, purpose text, provider text, model text, status text, coverage text, input_tokens integer, output_tokens integer, cost_microcents integer, recorded integer, started_at integer, settled_at integer)",
  );
  db.exec(
    "INSERT INTO relavium_invocations VALUES ('a', 's', 'turn', 'p', 'm', 'pending', NULL, 0, 0, 0, 0, 5, NULL), ('b', 's', 'turn', 'p', 'm', 'settled', 'priced', 1, 1, 9, 1, 6, 7)",
  );
  upgradeJournal(db);
  assert.deepEqual(
    db.prepare("SELECT id FROM relavium_open_invocations").all().map((r) =>
      r["id"]
    ),
    ["a"],
  );
  assert.equal(
    db.prepare(
      "SELECT name FROM sqlite_master WHERE name = 'relavium_invocations'",
    ).get(),
    undefined,
  );
  db.close();
});
