/**
 * Attack table F24: a hostile `history.db`. Objects the store did not
 * create (a trigger, a view or virtual table named like its table, an
 * index that evaluates on every write) are refused by name before any
 * write; integers at the 64-bit limits and a `__proto__` key in a stored
 * agent are named damaged rows; `chat-list` over 100,001 sessions lists
 * them all. Each row: its exit code and stderr, never an internal error,
 * and nothing stored changed.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { openSqliteStore } from "../../store/sqlite_store.ts";
import { runCli, tempDir, textCassette, write } from "../cli/_helpers.ts";
import { deps } from "../store/_harness.ts";
import { assertNoCrash, seedHistory } from "./_kit.ts";

/** `home/history.db` with `s1` and `s2` (one turn each), then `tamper`. */
async function seed(dir: string, tamper: string): Promise<void> {
  const db = new DatabaseSync(
    await seedHistory(dir, ["first question", "second question"]),
  );
  try {
    db.exec("PRAGMA ignore_check_constraints = ON");
    db.exec(tamper);
  } finally {
    db.close();
  }
}

/** Every row of the store's tables, to compare before and after. */
function stored(dir: string): string {
  const db = new DatabaseSync(`${dir}/home/history.db`, { readOnly: true });
  try {
    const tables = db.prepare(
      "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY name",
    ).all().map((r) => String(r["name"]));
    const all = (t: string): unknown[] => {
      const q = db.prepare(`SELECT * FROM "${t}"`);
      q.setReadBigInts(true);
      return q.all();
    };
    return JSON.stringify(
      tables.map((t) => [t, all(t)]),
      (_k, v) => typeof v === "bigint" ? String(v) : v,
    );
  } finally {
    db.close();
  }
}

interface Row {
  name: string;
  tamper: string;
  argv: string[];
  code: number;
  stderr: RegExp;
}

const CHAT = ["chat", "--fixture", "new.json"];
const RESUME = ["chat-resume", "s2", "--fixture", "c.json"];

/** A foreign object refused by name, for a writer and for a reader. */
function foreign(name: string, tamper: string, named: RegExp): Row[] {
  return [CHAT, ["chat-list"], RESUME].map((argv) => ({
    name: `${argv[0]}: ${name} is refused by name before any write`,
    tamper,
    argv,
    code: 1,
    stderr: new RegExp(
      `^error: Cannot open the session store .*history\\.db: it holds objects this version did not create, which would run or answer in place of its own: ${named.source} \\(nothing was changed; drop them`,
    ),
  }));
}

/** A damaged row named for the commands that read it. */
function damaged(name: string, tamper: string, named: RegExp): Row[] {
  return [["chat-show", "s2"], ["chat-export", "s2"], RESUME].map((argv) => ({
    name: `${argv[0]}: ${name} is a named damaged row`,
    tamper,
    argv,
    code: 1,
    stderr: new RegExp(`^error: Cannot read session s2: ${named.source}`),
  }));
}

const MAX = "9223372036854775807";

const rows: Row[] = [
  ...foreign(
    "a trigger that deletes other sessions on insert",
    `CREATE TRIGGER wipe AFTER INSERT ON session_messages BEGIN
       DELETE FROM agent_sessions WHERE id <> NEW.session_id; END`,
    /trigger "wipe" on session_messages/,
  ),
  ...foreign(
    "a trigger that stalls every write",
    `CREATE TRIGGER stall BEFORE INSERT ON agent_sessions BEGIN
       SELECT count(*) FROM (WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL
       SELECT n + 1 FROM c WHERE n < 200000) SELECT n FROM c); END`,
    /trigger "stall" on agent_sessions/,
  ),
  ...foreign(
    "a view named like its table",
    `ALTER TABLE relavium_session_turns RENAME TO turns_kept;
     CREATE VIEW relavium_session_turns AS SELECT * FROM turns_kept`,
    /view "relavium_session_turns" \(named like its table\)/,
  ),
  ...foreign(
    "a unique index of its own on a table",
    "CREATE UNIQUE INDEX one_role ON session_messages (session_id, role)",
    /index "one_role" on session_messages/,
  ),
  ...foreign(
    "an index over expressions",
    "CREATE INDEX by_len ON agent_sessions (length(title) / 0)",
    /index "by_len" on agent_sessions/,
  ),
  ...damaged(
    "a token total at the 64-bit limit",
    `UPDATE agent_sessions SET total_input_tokens = ${MAX} WHERE id = 's2'`,
    /its stored row is damaged \(agent_sessions\.total_input_tokens is invalid\)/,
  ),
  ...damaged(
    "a message time at the 64-bit limit",
    `UPDATE session_messages SET created_at = ${MAX}
     WHERE session_id = 's2' AND sequence_number = 1`,
    /its session_messages row at sequence_number 1 is damaged/,
  ),
  ...damaged(
    "a stored agent with a __proto__ key",
    `UPDATE agent_sessions SET agent_snapshot = '{"__proto__":{"tools":["write_file"]},"id":"mini","model":"gpt-5.4-mini","provider":"openai","system_prompt":"Be terse."}' WHERE id = 's2'`,
    /its stored row is damaged \(agent_sessions\.agent_snapshot is invalid\)/,
  ),
  {
    name: "chat-resume: a lease heartbeat at the 64-bit limit is named",
    tamper: `INSERT INTO relavium_session_leases VALUES
      ('s2', 'other', 7, 'box', 1000, ${MAX})`,
    argv: RESUME,
    code: 2,
    stderr:
      /^error: Session s2 is held by a damaged lease row \(relavium_session_leases\.heartbeat_at is invalid, process 7 on host "box"\), since [^ ]+: .*'relavium chat-release s2'/,
  },
];

Deno.test("F24 attack: a hostile history.db", async (t) => {
  for (const row of rows) {
    await t.step(row.name, async () => {
      await using dir = await tempDir();
      await seed(dir.path, row.tamper);
      await write(`${dir.path}/c.json`, textCassette("openai", ["Again."]));
      await write(
        `${dir.path}/new.json`,
        textCassette("anthropic", ["Hello."]),
      );
      const before = stored(dir.path);
      const r = await runCli(row.argv, {
        env: { RELAVIUM_HOME: `${dir.path}/home`, NO_COLOR: "1" },
        cwd: dir.path,
        stdin: "hi\n",
      });
      assert.equal(r.code, row.code, r.stderr + r.stdout);
      assert.match(r.stderr, row.stderr);
      assertNoCrash(r.stdout + r.stderr);
      assert.equal(stored(dir.path), before, "nothing stored changed");
    });
  }
});

const SESSIONS = 100_001;

/** Plants `count` sessions of one turn each, with random ids. */
function plantMany(path: string, count: number): string[] {
  const db = new DatabaseSync(path);
  const ids: string[] = [];
  try {
    db.exec("BEGIN");
    const s = db.prepare(
      `INSERT INTO agent_sessions (id, agent_slug, title, model_id,
       working_dir, created_at, updated_at) VALUES (?, 'mini', 't', 'm', '/w', ?, ?)`,
    );
    const m = db.prepare(
      `INSERT INTO session_messages (id, session_id, sequence_number, role,
       content_parts, created_at) VALUES (?, ?, ?, ?, '[]', ?)`,
    );
    for (let i = 0; i < count; i++) {
      const id = crypto.randomUUID();
      ids.push(id);
      s.run(id, i, i);
      m.run(`${id}-0`, id, 0, "user", i);
      m.run(`${id}-1`, id, 1, "assistant", i);
    }
    db.exec("COMMIT");
  } finally {
    db.close();
  }
  return ids;
}

Deno.test("F24 attack: chat-list over 100,001 sessions lists each once with a unique short id", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/home`, { recursive: true });
  openSqliteStore(`${dir.path}/home/history.db`, deps()).close();
  const ids = plantMany(`${dir.path}/home/history.db`, SESSIONS);
  // A child with a hang guard: a listing that never ends fails the row
  // instead of the suite.
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      fileURLToPath(new URL("../../cli.ts", import.meta.url)),
      "chat-list",
    ],
    env: { RELAVIUM_HOME: `${dir.path}/home`, NO_COLOR: "1" },
    cwd: dir.path,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(120_000),
  });
  const out = await child.output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, `chat-list ended ${out.code}: ${stderr}`);
  assert.equal(stderr, "");
  const lines = new TextDecoder().decode(out.stdout).trimEnd().split("\n");
  assert.equal(lines.length, SESSIONS);
  const shown = lines.map((l) => l.split(" ")[0] ?? "");
  assert.equal(new Set(shown).size, SESSIONS, "short ids are unique");
  const sorted = [...ids].sort();
  for (const short of shown.slice(0, 50)) {
    assert.equal(sorted.filter((id) => id.startsWith(short)).length, 1);
  }
});
