/**
 * `relavium store migrate-to-postgres`: a `history.db` built by the real
 * CLI from a cassette (a two-turn chat, a chat with a compaction marker,
 * extra costs and a pending journal row, a soft-deleted chat) is copied
 * into Postgres; every session's export and `chat-show --json` (its
 * per-turn figures included) are the same from both stores; a second run
 * skips them all; a session changed in Postgres is named, exits 1 and is
 * left as it is; a damaged row and a live writer
 * are named; a missing file and an unset variable are named; the URL's
 * password appears in no output. Postgres comes from `tests/store/_pg.ts`.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { textCassette } from "../cli/_helpers.ts";
import { type Scenario, scenario } from "../cli/_kit/scenario.ts";
import { adminSql, PG_SKIP_NOTE, pgUrlForFile } from "./_pg.ts";

const URL_ENV = "RLV_MIGRATE_PG_URL";

const base = pgUrlForFile();

/** A chat of `lines` from a cassette of as many replies; its session id. */
async function chat(s: Scenario, lines: string[]): Promise<string> {
  await s.file(
    "c.json",
    textCassette("anthropic", lines.map((l) => `re ${l}`)),
  );
  const r = await s.run(["--json", "chat", "--fixture", "c.json"], {
    stdin: lines.map((l) => `${l}\n`).join(""),
    code: 0,
  });
  const id = r.events[0]?.sessionId;
  assert.ok(id !== undefined);
  return id;
}

/** Each listed session's export, run through the CLI to one file. */
async function exports(s: Scenario, ids: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const id of ids) {
    await s.run(["chat-export", id, "--out", `x/${id}.yaml`, "--force"], {
      code: 0,
    });
    out.push(await Deno.readTextFile(`${s.cwd}/x/${id}.yaml`));
  }
  return out;
}

Deno.test({
  name:
    "store migrate-to-postgres copies every session, verifies exports, skips on a rerun and keeps a changed copy",
  ignore: base === undefined,
  async fn() {
    assert.ok(base !== undefined && base !== "unavailable", PG_SKIP_NOTE);
    const admin = await adminSql(base);
    const schema = `m_${crypto.randomUUID().replaceAll("-", "")}`;
    await admin.unsafe(`CREATE SCHEMA ${schema}`);
    try {
      const url = new URL(base);
      if (url.password === "") url.password = "Planted-pw-5eCr3t-77";
      url.searchParams.set("search_path", schema);
      const password = decodeURIComponent(url.password);
      await using s = await scenario({ env: { [URL_ENV]: url.href } });
      const printed: string[] = [];
      const run = async (argv: string[], code: number, env = s.env) => {
        const r = await s.run(argv, { env, code });
        printed.push(r.stdout, r.stderr);
        return r;
      };

      // history.db, through the CLI on SQLite, plus the library's writes.
      const multi = await chat(s, ["one", "two", "three"]);
      const marked = await chat(s, ["alpha"]);
      const deleted = await chat(s, ["gone"]);
      s.store((store) => {
        store.appendMarker?.(marked, {
          summary: "They said alpha.",
          keptTurnCount: 0,
          tokensUsed: { input: 7, output: 3 },
          costs: [{
            model: "claude-x",
            inputTokens: 7,
            outputTokens: 3,
            costMicrocents: 4321,
            priced: true,
            cacheReadTokens: 2,
            cacheReadMicrocents: 11,
          }],
        });
        store.recordCosts(marked, [{
          model: "other-model",
          inputTokens: 1,
          outputTokens: 1,
          costMicrocents: 0,
          priced: false,
        }], 5);
        store.beginInvocation?.(marked, {
          purpose: "turn",
          provider: "anthropic",
          model: "claude-x",
          turnNumber: 6,
        });
      });
      await run(["chat-delete", deleted, "--yes"], 0);
      const visible = [multi, marked];
      const before = await exports(s, visible);
      const shows = async () => {
        const out: string[] = [];
        for (const id of visible) {
          out.push((await run(["chat-show", id, "--json"], 0)).stdout);
        }
        return out;
      };
      // Totals, costs per model, boundaries, coverage, as chat-show has them.
      const shownBefore = await shows();
      assert.match(shownBefore[1] ?? "", /other-model/);
      // The per-turn figures are part of what must come across.
      const turnsOf = (shown: string | undefined) =>
        (JSON.parse(shown ?? "{}") as {
          turnUsage?: { turnNumber: number }[];
        }).turnUsage?.map((t) => t.turnNumber);
      assert.deepEqual(turnsOf(shownBefore[0]), [1, 2, 3]);
      assert.deepEqual(turnsOf(shownBefore[1]), [1, 5]);

      // The store is now Postgres; the migration reads history.db.
      await Deno.writeTextFile(
        `${s.home}/config.toml`,
        `[store]\nkind = "postgres"\nurl_env = "${URL_ENV}"\n`,
      );
      const first = await run(["store", "migrate-to-postgres"], 0);
      assert.equal(first.stdout, "copied 3, skipped 0, verified 3\n");
      assert.equal(first.stderr, "");
      assert.deepEqual(await exports(s, visible), before);
      assert.deepEqual(await shows(), shownBefore);
      assert.match(shownBefore[1] ?? "", /They said alpha\./);
      // The soft-deleted session is there, still deleted.
      const gone = await admin.unsafe(
        `SELECT deleted_at FROM ${schema}.agent_sessions WHERE id = $1`,
        [deleted],
      );
      assert.equal(gone.length, 1);
      assert.notEqual(gone[0]?.["deleted_at"], null);
      const listed = await run(["chat-list", "--json"], 0);
      assert.ok(!listed.stdout.includes(deleted));

      // Again: nothing to copy (the exports above marked both stores alike).
      const again = await run(["--json", "store", "migrate-to-postgres"], 0);
      const record = JSON.parse(again.stdout);
      assert.deepEqual(
        [record.copied, record.skipped, record.verified, record.failed],
        [0, 3, 3, 0],
      );

      // A copy changed in Postgres: named, exit 1, left as it is.
      await admin.unsafe(
        `UPDATE ${schema}.session_messages SET content_parts = $1
         WHERE session_id = $2 AND sequence_number = 0`,
        ['[{"type":"text","text":"changed"}]', multi],
      );
      const changed = await run(["store", "migrate-to-postgres"], 1);
      assert.match(
        changed.stderr,
        new RegExp(
          `Session ${multi} not copied: already in Postgres with other rows.*session_messages`,
        ),
      );
      assert.equal(
        changed.stdout,
        "copied 0, skipped 2, verified 2, not copied or not verified 1\n",
      );
      const kept = await admin.unsafe(
        `SELECT content_parts FROM ${schema}.session_messages
         WHERE session_id = $1 AND sequence_number = 0`,
        [multi],
      );
      assert.match(String(kept[0]?.["content_parts"]), /changed/);

      // A damaged row of history.db and a session a chat holds: named.
      const db = new DatabaseSync(`${s.home}/history.db`);
      db.prepare("UPDATE agent_sessions SET context_json = '{' WHERE id = ?")
        .run(marked);
      const now = Date.now();
      db.prepare(
        `INSERT INTO relavium_session_leases (session_id, holder_id, pid,
         hostname, acquired_at, heartbeat_at) VALUES (?, 'h', 1, 'x', ?, ?)`,
      ).run(deleted, now, now);
      db.close();
      const bad = await run(["store", "migrate-to-postgres"], 1);
      assert.match(
        bad.stderr,
        new RegExp(
          `Session ${marked} not copied: .*agent_sessions.context_json is not valid JSON`,
        ),
      );
      assert.match(
        bad.stderr,
        new RegExp(`Session ${deleted} not copied: a chat has it open`),
      );

      // A copy that fails midway (a row id Postgres already has) leaves
      // nothing of the session behind.
      const late = crypto.randomUUID();
      s.store((store) => {
        store.create({
          id: late,
          agentSlug: "mini",
          context: { workingDir: s.cwd, fsScopeTier: "sandboxed" },
        });
        store.commitTurn(late, {
          userText: "hi",
          rounds: [],
          finalText: "hello",
          modelId: "m",
          tokensUsed: { input: 3, output: 1 },
          costs: [],
        });
      });
      const lite = new DatabaseSync(`${s.home}/history.db`);
      const taken = lite.prepare(
        "SELECT id FROM session_messages WHERE session_id = ? AND sequence_number = 1",
      ).get(late)?.["id"];
      lite.close();
      await admin.unsafe(
        `INSERT INTO ${schema}.session_messages (id, session_id,
         sequence_number, role, created_at) VALUES ($1, $2, 99, 'user', 0)`,
        [String(taken), multi],
      );
      const midway = await run(["store", "migrate-to-postgres"], 1);
      assert.match(
        midway.stderr,
        new RegExp(`Session ${late} not copied: .*id already used in Postgres`),
      );
      for (const t of ["agent_sessions", "session_messages"]) {
        const left = await admin.unsafe(
          `SELECT 1 FROM ${schema}.${t} WHERE ${
            t === "agent_sessions" ? "id" : "session_id"
          } = $1`,
          [late],
        );
        assert.equal(left.length, 0, t);
      }

      // Bad input: a missing file, an unset variable.
      const missing = await run(
        ["store", "migrate-to-postgres", "--from", "nope/history.db"],
        1,
      );
      assert.match(
        missing.stderr,
        new RegExp(`${s.cwd}/nope/history.db does not exist`),
      );
      const unset = await run(["store", "migrate-to-postgres"], 1, {
        ...s.env,
        [URL_ENV]: "",
      });
      assert.match(unset.stderr, new RegExp(`${URL_ENV} is not set`));
      const dead = new URL(url.href);
      dead.searchParams.delete("host");
      dead.hostname = "127.0.0.1";
      dead.port = "1";
      const refused = await run(["store", "migrate-to-postgres"], 1, {
        ...s.env,
        [URL_ENV]: dead.href,
      });
      assert.match(refused.stderr, new RegExp(`Postgres.*\\(${URL_ENV}\\)`));

      for (const text of printed) {
        assert.ok(!text.includes(password), "the password was printed");
      }
    } finally {
      await admin.unsafe(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end({ timeout: 5 });
    }
  },
});
