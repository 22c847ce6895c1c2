/**
 * The CLI on `[store] kind = "postgres"`: `chat` from a cassette, then
 * `chat-list`, `chat-show`, `chat-export` and `chat-resume` read and write
 * the session in Postgres; the export and `chat-show --json` (its
 * per-turn figures included) are the same as the same chat kept in SQLite
 * (ids, times and folders aside); and the URL's password is planted and
 * searched for in every output, the export and every stored row. Postgres
 * comes from `tests/store/_pg.ts`.
 */
import assert from "node:assert/strict";
import { textCassette } from "../cli/_helpers.ts";
import { type Scenario, scenario } from "../cli/_kit/scenario.ts";
import { adminSql, PG_SKIP_NOTE, pgUrlForFile } from "./_pg.ts";

const URL_ENV = "RLV_TEST_PG_URL";

/** The server's URL in a schema of its own, with a password in it. */
async function scopedUrl(base: string): Promise<{
  url: string;
  password: string;
  rows(): Promise<string>;
  [Symbol.asyncDispose](): Promise<void>;
}> {
  const admin = await adminSql(base);
  const schema = `t_${crypto.randomUUID().replaceAll("-", "")}`;
  await admin.unsafe(`CREATE SCHEMA ${schema}`);
  const scoped = new URL(base);
  // A server without passwords ignores the planted one.
  if (scoped.password === "") scoped.password = "Planted-pw-5eCr3t-91";
  scoped.searchParams.set("search_path", schema);
  return {
    url: scoped.href,
    password: decodeURIComponent(scoped.password),
    async rows() {
      const tables = await admin.unsafe(
        `SELECT table_name FROM information_schema.tables
         WHERE table_schema = '${schema}'`,
      );
      let all = "";
      for (const t of tables) {
        const rows = await admin.unsafe(
          `SELECT t::text AS r FROM ${schema}.${String(t["table_name"])} t`,
        );
        all += rows.map((r) => String(r["r"])).join("\n");
      }
      return all;
    },
    async [Symbol.asyncDispose]() {
      await admin.unsafe(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end({ timeout: 5 });
    },
  };
}

/** One chat from the cassette, then its export; what each run printed. */
async function chatAndExport(s: Scenario): Promise<{
  id: string;
  exported: string;
  /** `chat-show --json` after the resumed turn, its folders named. */
  shown: string;
  printed: string[];
}> {
  await s.file("c.json", textCassette("anthropic", ["Hello there.", "Again."]));
  const chat = await s.run(["--json", "chat", "--fixture", "c.json"], {
    stdin: "hi\n",
    code: 0,
  });
  const id = chat.events[0]?.sessionId;
  assert.ok(id !== undefined);
  const list = await s.run(["chat-list", "--json"], { code: 0 });
  assert.ok(list.stdout.includes(id), list.stdout);
  const show = await s.run(["chat-show", id, "--json"], { code: 0 });
  const shown = JSON.parse(show.stdout);
  assert.equal(shown.turns.length, 1);
  const exported = await s.run(["chat-export", id, "--out", "out.yaml"], {
    code: 0,
  });
  const resumed = await s.run(
    ["--json", "chat-resume", id, "--fixture", "c.json"],
    { stdin: "more\n", code: 0 },
  );
  const after = await s.run(["chat-show", id, "--json"], { code: 0 });
  assert.equal(JSON.parse(after.stdout).turns.length, 2);
  return {
    id,
    exported: await Deno.readTextFile(`${s.cwd}/out.yaml`),
    shown: after.stdout.replaceAll(s.cwd, "<cwd>").replaceAll(s.home, "<home>"),
    printed: [chat, list, show, exported, resumed, after].flatMap((
      r,
    ) => [r.stdout, r.stderr]),
  };
}

const base = pgUrlForFile();

Deno.test({
  name:
    "CLI on [store] kind = postgres: chat, list, show, export, resume; same export bytes and chat-show --json as SQLite; the password nowhere",
  ignore: base === undefined,
  async fn() {
    assert.ok(base !== undefined && base !== "unavailable", PG_SKIP_NOTE);
    await using pg = await scopedUrl(base);
    await using s = await scenario({ env: { [URL_ENV]: pg.url } });
    await Deno.mkdir(s.home, { recursive: true });
    await Deno.writeTextFile(
      `${s.home}/config.toml`,
      `[store]\nkind = "postgres"\nurl_env = "${URL_ENV}"\n`,
    );
    const onPg = await chatAndExport(s);
    // Nothing went to history.db.
    await assert.rejects(
      Deno.lstat(`${s.home}/history.db`),
      Deno.errors.NotFound,
    );

    await using lite = await scenario();
    const onSqlite = await chatAndExport(lite);
    // Ids and times aside (each chat ran on the real clock).
    const bare = (text: string) =>
      text.replace(
        /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g,
        "<id>",
      )
        .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, "<time>");
    assert.equal(bare(onPg.exported), bare(onSqlite.exported));
    // chat-show --json alike, its per-turn figures included.
    assert.equal(bare(onPg.shown), bare(onSqlite.shown));
    assert.deepEqual(
      JSON.parse(onPg.shown).turnUsage.map((t: { turnNumber: number }) =>
        t.turnNumber
      ),
      [1, 2],
    );

    // chat-delete: the session leaves the listing and cannot be shown.
    const deleted = await s.run(["chat-delete", onPg.id, "--yes"], { code: 0 });
    const gone = await s.run(["chat-show", onPg.id, "--json"]);
    assert.notEqual(gone.code, 0);
    const listed = await s.run(["chat-list", "--json"], { code: 0 });
    assert.ok(!listed.stdout.includes(onPg.id));
    onPg.printed.push(deleted.stdout, deleted.stderr, gone.stderr);

    // A server that cannot be reached: named, without the URL.
    const dead = new URL(pg.url);
    dead.searchParams.delete("host");
    dead.hostname = "127.0.0.1";
    dead.port = "1";
    const refused = await s.run(["chat-list"], {
      env: { ...s.env, [URL_ENV]: dead.href },
    });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, new RegExp(URL_ENV));

    for (
      const text of [
        ...onPg.printed,
        onPg.exported,
        refused.stdout,
        refused.stderr,
        await pg.rows(),
      ]
    ) {
      assert.ok(!text.includes(pg.password), "the password was printed");
    }
  },
});
