/**
 * The three stores under one asynchronous face, for the store contract
 * suite: memory and SQLite (their synchronous methods wrapped in promises)
 * and Postgres (each opening in a schema of its own, dropped after). Each
 * store can open a second handle on the same database (not memory) and
 * run raw SQL there (to age a lease or damage a row).
 */
import { DatabaseSync } from "node:sqlite";
import { createMemoryStore } from "../../store/memory_store.ts";
import { openSqliteStore } from "../../store/sqlite_store.ts";
import type { AsyncSessionStore, SessionStore } from "../../store/store.ts";
import { openPostgresStore } from "../../store/postgres/mod.ts";
import { deps, tempDir } from "./_harness.ts";
import { adminSql, PG_SKIP_NOTE, testPgUrl } from "./_pg.ts";

/** A synchronous store behind promises (a throw becomes a rejection). */
export function asAsync(store: SessionStore): AsyncSessionStore {
  return new Proxy(store, {
    get(target, key) {
      if (key === "asynchronous") return true;
      const value: unknown = Reflect.get(target, key);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        try {
          return Promise.resolve(value.apply(target, args));
        } catch (error) {
          return Promise.reject(error);
        }
      };
    },
  }) as unknown as AsyncSessionStore;
}

/** One store under the contract. */
export interface ContractStore {
  store: AsyncSessionStore;
  /** A second handle on the same database, or `undefined` (memory). */
  second?(): Promise<AsyncSessionStore>;
  /** Runs one raw statement on the database (not memory). */
  raw?(statement: string): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** A store kind of the contract suite. */
export interface ContractFactory {
  name: string;
  /** One database several handles share (`second` and `raw` are set). */
  shared: boolean;
  /** Why its tests are skipped, when they are. */
  skip?: string;
  open(): Promise<ContractStore>;
}

function pgFactory(): ContractFactory {
  let url: string | undefined;
  let skip: string | undefined;
  try {
    url = testPgUrl();
    if (url === undefined) skip = PG_SKIP_NOTE;
  } catch (error) {
    // CI without a server: registered, and failing, never skipped.
    const message = error instanceof Error ? error.message : String(error);
    return {
      name: "postgres",
      shared: true,
      open: () => Promise.reject(new Error(message)),
    };
  }
  return {
    name: "postgres",
    shared: true,
    ...(skip === undefined ? {} : { skip }),
    async open(): Promise<ContractStore> {
      if (url === undefined) throw new Error(PG_SKIP_NOTE);
      const schema = `t_${crypto.randomUUID().replaceAll("-", "")}`;
      const admin = await adminSql(url);
      await admin.unsafe(`CREATE SCHEMA ${schema}`);
      const scoped = new URL(url);
      scoped.searchParams.set("search_path", schema);
      const handles: AsyncSessionStore[] = [];
      const open = async () => {
        const s = await openPostgresStore({ url: scoped.href, ...deps() });
        handles.push(s);
        return s;
      };
      const store = await open();
      return {
        store,
        second: () =>
          openPostgresStore({ url: scoped.href, ...deps("b") }).then((s) => {
            handles.push(s);
            return s;
          }),
        raw: async (statement) => {
          await admin.unsafe(`SET search_path = ${schema}; ${statement}`);
        },
        async [Symbol.asyncDispose]() {
          for (const h of handles) await h.close();
          await admin.unsafe(`DROP SCHEMA ${schema} CASCADE`);
          await admin.end({ timeout: 5 });
        },
      };
    },
  };
}

/** Memory, SQLite and Postgres. */
export const CONTRACT_FACTORIES: ContractFactory[] = [
  {
    name: "memory",
    shared: false,
    open(): Promise<ContractStore> {
      const store = asAsync(createMemoryStore(deps()));
      return Promise.resolve({
        store,
        [Symbol.asyncDispose]: () => Promise.resolve(),
      });
    },
  },
  {
    name: "sqlite",
    shared: true,
    async open(): Promise<ContractStore> {
      const dir = await tempDir();
      const path = `${dir.path}/history.db`;
      const handles: SessionStore[] = [openSqliteStore(path, deps())];
      return {
        store: asAsync(handles[0] as SessionStore),
        second: () => {
          const s = openSqliteStore(path, deps("b"));
          handles.push(s);
          return Promise.resolve(asAsync(s));
        },
        raw: (statement) => {
          const db = new DatabaseSync(path);
          try {
            db.exec(statement);
          } finally {
            db.close();
          }
          return Promise.resolve();
        },
        async [Symbol.asyncDispose]() {
          for (const h of handles) h.close();
          await dir[Symbol.asyncDispose]();
        },
      };
    },
  },
  pgFactory(),
];
