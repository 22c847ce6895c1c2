/**
 * `serve` on Postgres whose event listener cannot start: named as the
 * store's listener failing, by the variable holding its URL (never the
 * URL), exit 1.
 *
 * @module
 */
import assert from "node:assert/strict";
import { pgServeFolder } from "./_pg_serve.ts";
import { pgUrlForFile } from "../store/_pg.ts";
import { cliRunArgs } from "../cli/_child.ts";

const base = pgUrlForFile();

Deno.test({
  name: "serve on Postgres: a listener that cannot start is the store's fault",
  ignore: base === undefined,
  async fn() {
    assert.ok(base !== undefined && base !== "unavailable", "no Postgres");
    const pg = await pgServeFolder(base, "http://127.0.0.1:1", [], "rlv-pgl-");
    // A role allowed one connection: the store opens on it, the listener
    // (a connection of its own) is refused.
    const role = `r_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
    const given = pg.folder.env["SERVE_TEST_PG"];
    assert.ok(given !== undefined, "the folder names its database");
    const url = new URL(given);
    try {
      await pg.admin.unsafe(
        `CREATE ROLE ${role} LOGIN PASSWORD 'pw-s3cret' CONNECTION LIMIT 1;
         GRANT ALL ON SCHEMA ${pg.schema} TO ${role}`,
      );
      url.username = role;
      url.password = "pw-s3cret";
      const out = await new Deno.Command(Deno.execPath(), {
        args: cliRunArgs(["serve", "--port", "0"]),
        cwd: `${pg.dir}/proj`,
        clearEnv: true,
        env: { ...pg.folder.env, SERVE_TEST_PG: url.href },
        stdin: "null",
      }).output();
      const stderr = new TextDecoder().decode(out.stderr);
      assert.equal(out.code, 1, stderr);
      assert.match(
        stderr,
        /Cannot listen for the Postgres store's events: .*\(SERVE_TEST_PG\)/,
      );
      assert.doesNotMatch(stderr, /Cannot listen on|pw-s3cret/);
    } finally {
      await pg.admin.unsafe(
        `DROP OWNED BY ${role}; DROP ROLE IF EXISTS ${role}`,
      )
        .catch(() => {});
      await pg.drop();
    }
  },
});
