/**
 * A serve folder on a Postgres store in a schema of its own, for tests of
 * several `serve` instances on one database.
 */
import assert from "node:assert/strict";
import { adminSql } from "../store/_pg.ts";
import { call, type Folder, prepareFolder, type ServeChild } from "./_kit.ts";

/**
 * Posts a message.
 *
 * @returns The 202's body; the test fails on any other answer.
 */
export async function send(
  s: ServeChild,
  id: string,
  text: string,
): Promise<Record<string, unknown>> {
  const sent = await call(s, "POST", `/v1/sessions/${id}/messages`, { text });
  assert.equal(sent.status, 202, JSON.stringify(sent.body));
  return sent.body;
}

/** The folder, the admin connection, the schema and the clean-up. */
export interface PgServeFolder {
  folder: Folder;
  dir: string;
  admin: Awaited<ReturnType<typeof adminSql>>;
  schema: string;
  /** Drops the schema, ends the connection, removes the folder. */
  drop(): Promise<void>;
}

/**
 * A fresh schema and a folder whose config keeps sessions in it.
 *
 * @param base The Postgres URL.
 * @param providerUrl The provider's base URL.
 * @param serve Extra `[serve]` lines.
 * @param prefix The temp folder's prefix.
 * @returns The folder and its clean-up.
 */
export async function pgServeFolder(
  base: string,
  providerUrl: string,
  serve: string[],
  prefix: string,
): Promise<PgServeFolder> {
  const admin = await adminSql(base);
  const schema = `t_${crypto.randomUUID().replaceAll("-", "")}`;
  await admin.unsafe(`CREATE SCHEMA ${schema}`);
  const scoped = new URL(base);
  scoped.searchParams.set("search_path", schema);
  const dir = await Deno.makeTempDir({ prefix });
  const folder = await prepareFolder(dir, providerUrl, serve);
  await Deno.writeTextFile(
    `${dir}/home/config.toml`,
    '\n[store]\nkind = "postgres"\nurl_env = "SERVE_TEST_PG"\n',
    { append: true },
  );
  folder.env["SERVE_TEST_PG"] = scoped.href;
  return {
    folder,
    dir,
    admin,
    schema,
    async drop() {
      await admin.unsafe(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
      await Deno.remove(dir, { recursive: true });
    },
  };
}
