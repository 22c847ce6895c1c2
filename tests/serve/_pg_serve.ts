/**
 * A serve folder on a Postgres store in a schema of its own, for tests of
 * several `serve` instances on one database.
 */
import assert from "node:assert/strict";
import { adminSql } from "../store/_pg.ts";
import {
  call,
  type FakeProvider,
  fakeProvider,
  type Folder,
  type Frame,
  prepareFolder,
  type ServeChild,
  type SseReader,
  startServe,
} from "./_kit.ts";

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

/**
 * Reads a stream until the server ends it, failing after 20 s.
 *
 * @returns Every frame it carried.
 */
export async function readToEnd(r: SseReader): Promise<Frame[]> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((res) => {
    timer = setTimeout(() => res("late"), 20_000);
  });
  const got = await Promise.race([r.until(() => false), late]);
  clearTimeout(timer);
  if (got === "late") {
    await r.close();
    assert.fail("the stream did not end");
  }
  assert.ok(r.ended());
  return r.frames;
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

/** Two `serve` instances on one schema, and what they share. */
export interface TwoServers extends AsyncDisposable {
  /** The loopback provider both use. */
  provider: FakeProvider;
  /** Their folder and schema. */
  pg: PgServeFolder;
  /** The first instance. */
  a: ServeChild;
  /** The second instance. */
  b: ServeChild;
  /** Gates a test holds turns with; all are opened before the clean-up. */
  gates: Array<PromiseWithResolvers<void>>;
}

/**
 * Starts two `serve` instances on a fresh schema; disposing opens every
 * gate, kills both, drops the schema and stops the provider.
 *
 * @param base The Postgres URL.
 * @param serve Extra `[serve]` lines.
 * @param prefix The temp folder's prefix.
 * @returns The instances.
 */
export async function twoServers(
  base: string,
  serve: string[],
  prefix: string,
): Promise<TwoServers> {
  const provider = fakeProvider();
  const gates: Array<PromiseWithResolvers<void>> = [];
  const started: ServeChild[] = [];
  let pg: PgServeFolder | undefined;
  const dispose = async (): Promise<void> => {
    for (const g of gates) g.resolve();
    for (const s of started) await s.stop("SIGKILL");
    await pg?.drop();
    await provider[Symbol.asyncDispose]();
  };
  try {
    pg = await pgServeFolder(base, provider.url, serve, prefix);
    started.push(await startServe(pg.folder));
    started.push(await startServe(pg.folder));
  } catch (e) {
    await dispose();
    throw e;
  }
  const [a, b] = started as [ServeChild, ServeChild];
  return { provider, pg, a, b, gates, [Symbol.asyncDispose]: dispose };
}
