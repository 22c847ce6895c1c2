/**
 * Attack table F26: the disk holding `history.db` is full. Every command
 * that writes names it (`the disk is full`, and what to do), exits 1 and
 * changes nothing stored. The disk is made full without filling the real
 * one: each connection of the run is capped at the pages its file already
 * has (`PRAGMA max_page_count`), so a write that needs one more page fails
 * in SQLite exactly as on a full disk (`SQLITE_FULL`).
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { runCli, tempDir, textCassette, write } from "../cli/_helpers.ts";
import { assertNoCrash, seedHistory } from "./_kit.ts";

/** Runs `fn` with every new connection capped at its file's current size. */
async function onFullDisk<T>(fn: () => Promise<T>): Promise<T> {
  const proto = DatabaseSync.prototype;
  const prepare = proto.prepare;
  proto.prepare = function (this: DatabaseSync, sql: string) {
    // Not below the file's size: SQLite keeps the larger of the two.
    this.exec("PRAGMA max_page_count = 1");
    return prepare.call(this, sql);
  };
  try {
    return await fn();
  } finally {
    proto.prepare = prepare;
  }
}

/** `home/history.db` with session `s1` (one turn), no room to spare. */
async function seed(dir: string): Promise<void> {
  const path = await seedHistory(dir, ["first question"], { ticking: true });
  // The lease table's one page nearly full: the next lease row needs
  // another page.
  const db = new DatabaseSync(path);
  db.exec("PRAGMA foreign_keys = OFF");
  db.prepare(
    "INSERT INTO relavium_session_leases VALUES ('gone', 'h', 1, ?, 1, 1)",
  ).run("x".repeat(4_020));
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.close();
}

function stored(dir: string): string {
  const db = new DatabaseSync(`${dir}/home/history.db`, { readOnly: true });
  try {
    return JSON.stringify([
      db.prepare("SELECT * FROM agent_sessions ORDER BY id").all(),
      db.prepare("SELECT COUNT(*) AS n FROM session_messages").get(),
      db.prepare("SELECT session_id FROM relavium_session_leases").all(),
    ]);
  } finally {
    db.close();
  }
}

const BIG_AGENT =
  `id: big\nmodel: claude-haiku-4-5\nprovider: anthropic\nsystem_prompt: ${
    "Be terse. ".repeat(8_000)
  }\n`;

interface Row {
  name: string;
  seed: boolean;
  argv: string[];
  stderr: RegExp;
}

const FULL =
  /Cannot write the session store: the disk is full \(nothing of this write was kept; free space on its disk, then try again\)/;

const rows: Row[] = [
  {
    name: "chat: creating the session on a full disk is named",
    seed: true,
    argv: ["chat", "--agent", "big.agent.yaml", "--fixture", "c.json"],
    stderr: FULL,
  },
  {
    name: "chat-resume: taking the session's lease on a full disk is named",
    seed: true,
    argv: ["chat-resume", "s1", "--fixture", "c.json"],
    stderr: FULL,
  },
];

Deno.test("F26 attack: a full disk", async (t) => {
  for (const row of rows) {
    await t.step(row.name, async () => {
      await using dir = await tempDir();
      await write(`${dir.path}/big.agent.yaml`, BIG_AGENT);
      await write(
        `${dir.path}/c.json`,
        textCassette(row.argv[0] === "chat" ? "anthropic" : "openai", [
          "Hello.",
        ]),
      );
      if (row.seed) await seed(dir.path);
      const before = row.seed ? stored(dir.path) : "";
      const r = await onFullDisk(() =>
        runCli(row.argv, {
          env: { RELAVIUM_HOME: `${dir.path}/home`, NO_COLOR: "1" },
          cwd: dir.path,
          stdin: "hi\n",
        })
      );
      assert.equal(r.code, 1, r.stderr + r.stdout);
      assert.match(r.stderr, row.stderr);
      assertNoCrash(r.stdout + r.stderr);
      if (row.seed) assert.equal(stored(dir.path), before, "nothing changed");
    });
  }
});
