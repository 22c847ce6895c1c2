/** SQLite-only behaviour: files, permissions, PRAGMAs, retries, read validation. */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import {
  SessionMessageBoundaryError,
  SessionRecordError,
  StoreOpenError,
} from "../../store/errors.ts";
import { openDatabaseFile } from "../../store/sqlite_file.ts";
import { openSqliteStore } from "../../store/sqlite_store.ts";
import { transaction } from "../../store/sqlite_tx.ts";
import { fixedClock } from "../_fakes/clock.ts";
import { cost, deps, newSession, tempDir, turn } from "./_harness.ts";

function mode(path: string): number {
  return (Deno.statSync(path).mode ?? 0) & 0o777;
}

Deno.test("openSqliteStore() creates the folder 0700 and the file and sidecars 0600", async () => {
  await using dir = await tempDir();
  const home = `${dir.path}/home/.relavium`;
  const path = `${home}/history.db`;
  const store = openSqliteStore(path, deps());
  store.create(newSession());
  store.commitTurn("s1", turn("hi"));
  assert.equal(mode(home), 0o700);
  assert.equal(mode(path), 0o600);
  assert.equal(mode(`${path}-wal`), 0o600);
  assert.equal(mode(`${path}-shm`), 0o600);
  store.close();
});

Deno.test("openSqliteStore() tightens an existing folder, file and sidecars", async () => {
  await using dir = await tempDir();
  const home = `${dir.path}/rh`;
  const path = `${home}/history.db`;
  const first = openSqliteStore(path, deps());
  first.create(newSession());
  const raw = new DatabaseSync(path);
  raw.exec("BEGIN IMMEDIATE; SELECT 1; COMMIT");
  Deno.chmodSync(home, 0o755);
  Deno.chmodSync(path, 0o644);
  Deno.chmodSync(`${path}-wal`, 0o644);
  Deno.chmodSync(`${path}-shm`, 0o644);
  const second = openSqliteStore(path, deps("b"));
  assert.equal(mode(home), 0o700);
  assert.equal(mode(path), 0o600);
  assert.equal(mode(`${path}-wal`), 0o600);
  assert.equal(mode(`${path}-shm`), 0o600);
  second.close();
  first.close();
  raw.close();
});

Deno.test("openDatabaseFile() sets the connection PRAGMAs", async () => {
  await using dir = await tempDir();
  const db = openDatabaseFile(`${dir.path}/h.db`, 5000);
  const one = (sql: string) => Object.values(db.prepare(sql).get() ?? {})[0];
  assert.equal(one("PRAGMA journal_mode"), "wal");
  assert.equal(one("PRAGMA busy_timeout"), 5000);
  assert.equal(one("PRAGMA synchronous"), 2, "FULL");
  assert.equal(one("PRAGMA foreign_keys"), 1);
  db.close();
});

Deno.test("openSqliteStore() throws StoreOpenError for unusable paths", async (t) => {
  await using dir = await tempDir();
  const notDb = `${dir.path}/not.db`;
  Deno.writeTextFileSync(notDb, "this is not a database ".repeat(40));
  const file = `${dir.path}/plain-file`;
  Deno.writeTextFileSync(file, "x");
  for (
    const [name, path, cause] of [
      ["not a database", notDb, "not a SQLite database"],
      [
        "a file where the folder should be",
        `${file}/history.db`,
        "a folder on its path is a file",
      ],
      ["a directory as the file", dir.path, `${dir.path} is a directory`],
    ]
  ) {
    await t.step(name ?? "", () => {
      assert.throws(
        () => openSqliteStore(path ?? "", deps()),
        (e) =>
          e instanceof StoreOpenError &&
          e.message === `Cannot open the session store: ${cause}`,
      );
    });
  }
  assert.equal(
    Deno.readTextFileSync(notDb),
    "this is not a database ".repeat(40),
  );
});

Deno.test("openSqliteStore() throws StoreOpenError when required columns are missing", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/old.db`;
  const raw = new DatabaseSync(path);
  raw.exec(
    "CREATE TABLE session_messages (id text PRIMARY KEY NOT NULL, session_id text NOT NULL)",
  );
  raw.close();
  assert.throws(() => openSqliteStore(path, deps()), StoreOpenError);
});

Deno.test("commitTurn() retries busy errors 5 times with linear backoff, then rethrows", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/h.db`;
  const waits: number[] = [];
  const store = openSqliteStore(path, {
    ...deps(),
    busyTimeoutMs: 0,
    sleep: (ms) => waits.push(ms),
  });
  store.create(newSession());
  const holder = new DatabaseSync(path);
  holder.exec("BEGIN IMMEDIATE");
  assert.throws(
    () => store.commitTurn("s1", turn("blocked", { costs: [cost("m", 9)] })),
    /Cannot write the session store: locked by another process/,
  );
  assert.deepEqual(waits, [25, 50, 75, 100]);
  holder.exec("ROLLBACK");
  assert.deepEqual(store.load("s1")?.messages, []);
  store.commitTurn("s1", turn("free"));
  assert.equal(store.load("s1")?.messages.length, 2);
  assert.deepEqual(waits, [25, 50, 75, 100]);
  holder.close();
  store.close();
});

Deno.test("a process-durable transaction commits at synchronous NORMAL and leaves the connection at FULL, also after busy retries fail", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/h.db`;
  const db = new DatabaseSync(path);
  db.exec(
    "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA busy_timeout=0",
  );
  db.exec("CREATE TABLE t (a)");
  const level = () => db.prepare("PRAGMA synchronous").get()?.["synchronous"];
  const seen = transaction(db, () => {
    db.prepare("INSERT INTO t VALUES (1)").run();
    return level();
  }, { begin: "IMMEDIATE", sleep: () => {}, durability: "process" });
  assert.equal(seen, 1);
  assert.equal(level(), 2);
  assert.equal(db.prepare("SELECT count(*) AS n FROM t").get()?.["n"], 1);
  const holder = new DatabaseSync(path);
  holder.exec("BEGIN IMMEDIATE");
  const waits: number[] = [];
  assert.throws(
    () =>
      transaction(db, () => db.prepare("INSERT INTO t VALUES (2)").run(), {
        begin: "IMMEDIATE",
        sleep: (ms) => waits.push(ms),
        durability: "process",
      }),
    /database is locked/,
  );
  assert.deepEqual(waits, [25, 50, 75, 100]);
  assert.equal(level(), 2);
  assert.equal(db.isTransaction, false);
  holder.exec("ROLLBACK");
  holder.close();
  assert.throws(
    () =>
      transaction(db, () => {
        throw new Error("work failed");
      }, { begin: "IMMEDIATE", sleep: () => {}, durability: "process" }),
    /work failed/,
  );
  assert.equal(level(), 2);
  assert.equal(db.prepare("SELECT count(*) AS n FROM t").get()?.["n"], 1);
  db.close();
});

Deno.test("create() does not retry a non-busy error", async () => {
  await using dir = await tempDir();
  const waits: number[] = [];
  const store = openSqliteStore(`${dir.path}/h.db`, {
    ...deps(),
    sleep: (ms) => waits.push(ms),
  });
  store.create(newSession());
  assert.throws(() => store.create(newSession()), /UNIQUE/);
  assert.deepEqual(waits, []);
  store.close();
});

Deno.test("commitTurn() from two connections never collides on sequence numbers", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/h.db`;
  const a = openSqliteStore(path, deps("a"));
  const b = openSqliteStore(path, deps("b"));
  a.create(newSession());
  for (let i = 0; i < 5; i++) {
    a.commitTurn("s1", turn(`a${i}`, { rounds: i % 2 }));
    b.commitTurn("s1", turn(`b${i}`));
  }
  const seqs = a.load("s1")?.messages.map((m) => m.sequenceNumber);
  assert.deepEqual(seqs, Array.from({ length: 24 }, (_, i) => i));
  a.close();
  b.close();
});

Deno.test("list() breaks updatedAt ties by id descending", async () => {
  await using dir = await tempDir();
  let n = 0;
  const store = openSqliteStore(`${dir.path}/h.db`, {
    clock: fixedClock(),
    ids: () => `r${n++}`,
  });
  for (const id of ["b", "c", "a"]) store.create(newSession(id));
  assert.deepEqual(store.list().map((r) => r.id), ["c", "b", "a"]);
  store.close();
});

Deno.test("allocateTurnKey() fails closed on an invalid stored mark", async (t) => {
  await using dir = await tempDir();
  const path = `${dir.path}/h.db`;
  const store = openSqliteStore(path, deps());
  store.create(newSession());
  assert.equal(store.allocateTurnKey("s1"), 1);
  const raw = new DatabaseSync(path);
  for (
    const [name, value] of [
      ["negative", "-3"],
      ["text", "'seven'"],
      ["real", "2.5"],
      ["exhausted", "9007199254740991"],
      ["beyond safe integers", "9007199254740993"],
    ] as const
  ) {
    await t.step(name, () => {
      raw.exec(
        `UPDATE relavium_session_state SET effect_turn_high_water = ${value}`,
      );
      assert.throws(
        () => store.allocateTurnKey("s1"),
        (e) => e instanceof SessionRecordError && e.code === "invalid_turn_key",
      );
    });
  }
  raw.exec("UPDATE relavium_session_state SET effect_turn_high_water = 41");
  assert.equal(store.allocateTurnKey("s1"), 42);
  raw.close();
  store.close();
});

interface Corruption {
  name: string;
  set: string;
  code: SessionMessageBoundaryError["code"];
  /** Row to corrupt: 0 user, 1 call row, 2 tool row, 3 terminal. */
  seq?: number;
}

const CORRUPTIONS: Corruption[] = [
  {
    name: "malformed body JSON",
    set: `content_parts = '[{'`,
    code: "malformed_json",
  },
  { name: "NULL body", set: "content_parts = NULL", code: "invalid_message" },
  {
    name: "unknown part key",
    set: `content_parts = '[{"type":"text","text":"a","x":1}]'`,
    code: "invalid_message",
  },
  {
    name: "raw args on a call",
    seq: 1,
    set:
      `content_parts = '[{"type":"tool_call","id":"session-tool:1:0","name":"read_file","argsBytes":18,"args":{}}]'`,
    code: "invalid_message",
  },
  { name: "unknown role", set: "role = 'developer'", code: "invalid_message" },
  {
    name: "compaction on a user row",
    set: "compaction_dropped_through_sequence = 0",
    code: "invalid_message",
  },
  {
    name: "content mismatch",
    set: "content = 'other'",
    code: "metadata_mismatch",
  },
  {
    name: "content not text",
    set: "content = X'00'",
    code: "invalid_metadata",
  },
  {
    name: "finish_reason on a user row",
    set: "finish_reason = 'stop'",
    code: "invalid_metadata",
  },
  {
    name: "unknown finish_reason",
    seq: 3,
    set: "finish_reason = 'end_turn'",
    code: "invalid_metadata",
  },
  {
    name: "malformed tool_calls JSON",
    seq: 1,
    set: "tool_calls = '[{'",
    code: "malformed_json",
  },
  {
    name: "tool_calls with raw args",
    seq: 1,
    set:
      `tool_calls = '[{"type":"tool_call","id":"session-tool:1:0","name":"read_file","argsBytes":18,"args":{}}]'`,
    code: "invalid_metadata",
  },
  {
    name: "tool_calls mismatch",
    seq: 1,
    set:
      `tool_calls = '[{"type":"tool_call","id":"session-tool:1:0","name":"read_file","argsBytes":19}]'`,
    code: "metadata_mismatch",
  },
  {
    name: "name mismatch",
    seq: 1,
    set: "name = 'write_file'",
    code: "metadata_mismatch",
  },
  {
    name: "name on a row without calls",
    set: "name = 'read_file'",
    code: "metadata_mismatch",
  },
  {
    name: "tool_call_id mismatch",
    seq: 2,
    set: "tool_call_id = 'session-tool:1:9'",
    code: "metadata_mismatch",
  },
];

Deno.test("load() re-validates every row and fails the whole read on corruption", async (t) => {
  await using dir = await tempDir();
  const path = `${dir.path}/h.db`;
  const store = openSqliteStore(path, deps());
  store.create(newSession());
  store.commitTurn("s1", turn("secret-user-text", { rounds: 1 }));
  const raw = new DatabaseSync(path);
  raw.exec("CREATE TEMP TABLE pristine AS SELECT * FROM session_messages");
  for (const c of CORRUPTIONS) {
    await t.step(c.name, () => {
      raw.exec(
        `UPDATE session_messages SET ${c.set}
         WHERE sequence_number = ${c.seq ?? 0}`,
      );
      try {
        assert.throws(
          () => store.load("s1"),
          (e) =>
            e instanceof SessionMessageBoundaryError && e.code === c.code &&
            e.cause === undefined && !e.message.includes("secret") &&
            !e.message.includes("position"),
        );
      } finally {
        raw.exec("DELETE FROM session_messages");
        raw.exec("INSERT INTO session_messages SELECT * FROM pristine");
      }
    });
  }
  raw.close();
  store.close();
});

Deno.test("load() accepts metadata that equals what the body implies", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/h.db`;
  const store = openSqliteStore(path, deps());
  store.create(newSession());
  store.commitTurn("s1", turn("hello", { rounds: 1, finalText: "bye" }));
  const before = store.load("s1");
  const raw = new DatabaseSync(path);
  raw.exec(
    `UPDATE session_messages SET content = 'hello' WHERE sequence_number = 0;
    UPDATE session_messages SET content = '', name = 'read_file',
      tool_calls = '[{"argsBytes":18,"name":"read_file","id":"session-tool:1:0","type":"tool_call"}]',
      finish_reason = 'tool_use' WHERE sequence_number = 1;
    UPDATE session_messages SET content = '', tool_call_id = 'session-tool:1:0'
      WHERE sequence_number = 2;
    UPDATE session_messages SET content = 'bye', finish_reason = 'stop', tool_calls = '[]'
      WHERE sequence_number = 3;`,
  );
  raw.close();
  assert.deepEqual(store.load("s1"), before);
  store.close();
});

Deno.test("load() refuses a corrupt session row", async (t) => {
  await using dir = await tempDir();
  const path = `${dir.path}/h.db`;
  const store = openSqliteStore(path, deps());
  store.create(newSession());
  const raw = new DatabaseSync(path);
  raw.exec("CREATE TEMP TABLE pristine AS SELECT * FROM agent_sessions");
  for (
    const [name, set, code] of [
      ["malformed context", "context_json = '{'", "malformed_json"],
      [
        "invalid context",
        `context_json = '{"workingDir":""}'`,
        "invalid_record",
      ],
      ["malformed snapshot", "agent_snapshot = '['", "malformed_json"],
      ["snapshot not an object", "agent_snapshot = '[1]'", "invalid_record"],
    ] as const
  ) {
    await t.step(name, () => {
      raw.exec("PRAGMA foreign_keys = OFF");
      raw.exec(`UPDATE agent_sessions SET ${set}`);
      try {
        assert.throws(
          () => store.load("s1"),
          (e) => e instanceof SessionRecordError && e.code === code,
        );
      } finally {
        raw.exec("DELETE FROM agent_sessions");
        raw.exec("INSERT INTO agent_sessions SELECT * FROM pristine");
      }
    });
  }
  assert.equal(store.load("s1")?.record.id, "s1");
  raw.close();
  store.close();
});

Deno.test("openDatabaseFile() leaves a sticky shared folder's mode alone", async () => {
  await using dir = await tempDir();
  const shared = `${dir.path}/shared`;
  Deno.mkdirSync(shared);
  Deno.chmodSync(shared, 0o1777);
  const db = openDatabaseFile(`${shared}/h.db`, 5000);
  db.close();
  assert.equal((Deno.statSync(shared).mode ?? 0) & 0o7777, 0o1777);
  assert.equal(mode(`${shared}/h.db`), 0o600);
});
