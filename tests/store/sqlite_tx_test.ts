/** The sqlite_tx.ts internals, case by case. */
import assert from "node:assert/strict";
import {
  blockingSleep,
  isBusyError,
  transaction,
} from "../../store/sqlite_tx.ts";
import { DatabaseSync } from "node:sqlite";

Deno.test("isBusyError() recognises a lock", () => {
  assert.equal(isBusyError(new Error("database is locked")), true);
  assert.equal(isBusyError(new Error("UNIQUE constraint failed")), false);
});

Deno.test("blockingSleep() returns after zero ms", () => {
  blockingSleep(0);
});

Deno.test("transaction() commits a write", () => {
  const db = new DatabaseSync(":memory:");
  db.exec("CREATE TABLE t (a)");
  transaction(db, () => db.prepare("INSERT INTO t VALUES (1)").run(), {
    begin: "IMMEDIATE",
    sleep: () => {},
  });
  assert.equal(db.prepare("SELECT a FROM t").get()?.["a"], 1);
});
