/** The sqlite_file.ts internals, case by case. */
import assert from "node:assert/strict";
import {
  openDatabaseFile,
  openDatabaseForRead,
  secureSidecars,
  sqliteResultCode,
  storeOpenCause,
} from "../../store/sqlite_file.ts";

Deno.test("sqliteResultCode() reads a lock's code", () => {
  assert.equal(sqliteResultCode(new Error("database is locked")), 5);
  assert.equal(sqliteResultCode(new TypeError("x")), undefined);
});

Deno.test("storeOpenCause() names a garbage file", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/h.db`, "garbage ".repeat(100));
  assert.throws(
    () => openDatabaseFile(`${dir}/h.db`, 0),
    (e) => storeOpenCause(e) === "not a SQLite database",
  );
  await Deno.remove(dir, { recursive: true });
});

Deno.test("secureSidecars() accepts a file without sidecars", async () => {
  secureSidecars(`${await Deno.makeTempDir()}/none.db`);
});

Deno.test("openDatabaseForRead() reads a store back", async () => {
  const dir = await Deno.makeTempDir();
  openDatabaseFile(`${dir}/h.db`, 0).close();
  const db = openDatabaseForRead(`${dir}/h.db`, 0);
  assert.equal(
    db.prepare("PRAGMA journal_mode").get()?.["journal_mode"],
    "wal",
  );
  db.close();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("openDatabaseFile() opens a fresh file", async () => {
  const dir = await Deno.makeTempDir();
  const db = openDatabaseFile(`${dir}/home/history.db`, 5000);
  assert.equal(
    ((await Deno.stat(`${dir}/home/history.db`)).mode ?? 0) & 0o777,
    0o600,
  );
  db.close();
  await Deno.remove(dir, { recursive: true });
});
