/** The sqlite_statements.ts internals, case by case. */
import assert from "node:assert/strict";
import { prepareStatements } from "../../store/sqlite_statements.ts";
import { STORE_DDL } from "../../store/ddl.ts";
import { DatabaseSync } from "node:sqlite";

Deno.test("prepareStatements() prepares on a fresh schema", () => {
  const db = new DatabaseSync(":memory:");
  for (const sql of STORE_DDL) db.exec(sql);
  assert.equal(prepareStatements(db, false).catalogByModel, undefined);
  db.close();
});
