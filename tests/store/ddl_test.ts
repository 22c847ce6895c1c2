/** The DDL equals the upstream tables minus catalog/agent foreign keys. */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { STORE_DDL } from "../../store/ddl.ts";
import { copyUpstream, tempDir, UPSTREAM_DB } from "./_harness.ts";

const UPSTREAM_SHA256 =
  "8561ab09534b6c4c07c119ef288e49736839b5a42ebb82ae95e6c9bde6e2fdd0";

function describe(db: DatabaseSync, table: string): unknown {
  const all = (sql: string) => db.prepare(sql).all().map((r) => ({ ...r }));
  return {
    columns: all(`PRAGMA table_xinfo(${table})`),
    indexes: all(`PRAGMA index_list(${table})`)
      .map((i) => ({
        ...i,
        name: String(i["name"]),
        seq: 0,
        columns: all(`PRAGMA index_xinfo(${String(i["name"])})`),
        sql: db.prepare("SELECT sql FROM sqlite_master WHERE name = ?").get(
          String(i["name"]),
        )?.["sql"],
      }))
      .sort((a, b) => a.name < b.name ? -1 : 1),
    foreignKeys: all(`PRAGMA foreign_key_list(${table})`)
      .filter((f) => f["table"] !== "model_catalog" && f["table"] !== "agents")
      .map((f) => ({ ...f, id: 0 })),
  };
}

Deno.test("STORE_DDL matches the upstream tables minus foreign keys to absent tables", async () => {
  await using dir = await tempDir();
  const digest = await crypto.subtle.digest(
    "SHA-256",
    await Deno.readFile(UPSTREAM_DB),
  );
  assert.equal(
    Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0"))
      .join(""),
    UPSTREAM_SHA256,
    "the vendored fixture is untouched",
  );
  const upstream = new DatabaseSync(await copyUpstream(dir.path), {
    readOnly: true,
  });
  const ours = new DatabaseSync(":memory:");
  for (const sql of STORE_DDL) ours.exec(sql);
  for (const table of ["agent_sessions", "session_messages", "session_costs"]) {
    assert.deepEqual(describe(ours, table), describe(upstream, table), table);
  }
  const catalogKeys = ["agent_sessions", "session_messages", "session_costs"]
    .flatMap((t) =>
      ours.prepare(`PRAGMA foreign_key_list(${t})`).all().filter((f) =>
        f["table"] === "model_catalog" || f["table"] === "agents"
      )
    );
  assert.deepEqual(catalogKeys, []);
  upstream.close();
  ours.close();
});

Deno.test("STORE_DDL only creates, and applying it twice changes nothing", () => {
  for (const sql of STORE_DDL) {
    assert.match(sql, /^CREATE (?:UNIQUE )?(?:TABLE|INDEX) IF NOT EXISTS /);
    assert.doesNotMatch(sql, /\b(?:ALTER|DROP)\b/i);
  }
  const db = new DatabaseSync(":memory:");
  for (const sql of STORE_DDL) db.exec(sql);
  const once = db.prepare("SELECT type, name, sql FROM sqlite_master").all();
  for (const sql of STORE_DDL) db.exec(sql);
  assert.deepEqual(
    db.prepare("SELECT type, name, sql FROM sqlite_master").all(),
    once,
  );
  db.close();
});

Deno.test("STORE_DDL adds relavium_session_state with a cascading key", () => {
  const db = new DatabaseSync(":memory:");
  for (const sql of STORE_DDL) db.exec(sql);
  db.exec("PRAGMA foreign_keys = ON");
  const cols = db.prepare("PRAGMA table_info(relavium_session_state)").all()
    .map((r) => [r["name"], r["type"], r["notnull"], r["dflt_value"], r["pk"]]);
  assert.deepEqual(cols, [
    ["session_id", "TEXT", 1, null, 1],
    ["effect_turn_high_water", "INTEGER", 1, "0", 0],
    ["total_conservative_microcents", "INTEGER", 1, "0", 0],
  ]);
  db.exec(`INSERT INTO agent_sessions (id, agent_slug, created_at, updated_at)
    VALUES ('s', 'a', 0, 0);
    INSERT INTO relavium_session_state (session_id) VALUES ('s');
    DELETE FROM agent_sessions;`);
  assert.equal(
    db.prepare("SELECT COUNT(*) AS n FROM relavium_session_state").get()?.["n"],
    0,
  );
  db.close();
});
