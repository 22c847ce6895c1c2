/** Shared store-test helpers: temp dirs, store factories, turn builders. */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { createMemoryStore } from "../../store/memory_store.ts";
import {
  openSqliteStore,
  type SqliteStoreOptions,
} from "../../store/sqlite_store.ts";
import type {
  CostEntry,
  NewSession,
  SessionStore,
  TurnCommit,
} from "../../store/store.ts";
import { steppingClock } from "../_fakes/clock.ts";
import { toolRounds } from "./_rounds.ts";

/** The vendored upstream fixture folder (copy files out, never open in place). */
export const UPSTREAM_DIR = new URL(
  "./_fixtures/upstream-history/",
  import.meta.url,
);

/** The upstream `history.db` (read-only; copy it before opening). */
export const UPSTREAM_DB = new URL("history.db", UPSTREAM_DIR);

/** A temp dir removed on dispose. */
export async function tempDir(): Promise<AsyncDisposable & { path: string }> {
  const path = await Deno.makeTempDir({ prefix: "relavium-store-" });
  return {
    path,
    async [Symbol.asyncDispose]() {
      await Deno.remove(path, { recursive: true });
    },
  };
}

/** Copies the upstream `history.db` into `dir` and returns the copy's path. */
export async function copyUpstream(dir: string): Promise<string> {
  const target = `${dir}/history.db`;
  await Deno.copyFile(UPSTREAM_DB, target);
  await Deno.chmod(target, 0o600);
  return target;
}

/** Deterministic store deps: a stepping clock and sequential ids. */
export function deps(prefix = "id"): SqliteStoreOptions {
  let n = 0;
  return {
    clock: steppingClock(Date.UTC(2026, 0, 1), 1000),
    ids: () => `${prefix}-${n++}`,
  };
}

/** A store under test with a raw view of what it holds. */
export interface StoreUnderTest {
  store: SessionStore;
  /** Per-model cost rows, ordered by model. */
  costs(sessionId: string): Array<
    { model: string; cost: number; calls: number; unpriced: number }
  >;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Factories for both stores, for behaviour shared by them. */
export const FACTORIES: Array<
  { name: string; open(): Promise<StoreUnderTest> }
> = [
  {
    name: "memory",
    open(): Promise<StoreUnderTest> {
      const store = createMemoryStore(deps());
      return Promise.resolve({
        store,
        costs: (id) =>
          store.costsOf(id).map((c) => ({
            model: c.model,
            cost: c.costMicrocents,
            calls: c.callCount,
            unpriced: c.unpricedCalls,
          })).sort((a, b) => a.model < b.model ? -1 : 1),
        [Symbol.asyncDispose]: () => Promise.resolve(),
      });
    },
  },
  {
    name: "sqlite",
    async open(): Promise<StoreUnderTest> {
      const dir = await tempDir();
      const path = `${dir.path}/history.db`;
      const store = openSqliteStore(path, deps());
      return {
        store,
        costs(id) {
          const db = new DatabaseSync(path, { readOnly: true });
          try {
            return db.prepare(
              `SELECT model, cost_microcents AS cost, call_count AS calls,
               unpriced_calls AS unpriced FROM session_costs
               WHERE session_id = ? ORDER BY model`,
            ).all(id).map((r) => ({
              model: String(r["model"]),
              cost: Number(r["cost"]),
              calls: Number(r["calls"]),
              unpriced: Number(r["unpriced"]),
            }));
          } finally {
            db.close();
          }
        },
        async [Symbol.asyncDispose]() {
          store.close();
          await dir[Symbol.asyncDispose]();
        },
      };
    },
  },
];

/** A new session for tests. */
export function newSession(id = "s1"): NewSession {
  return {
    id,
    agentSlug: "mini",
    modelId: "gpt-5.4-mini",
    agentSnapshot: {
      id: "mini",
      model: "gpt-5.4-mini",
      provider: "openai",
      system_prompt: "Be terse.",
    },
    context: { workingDir: "/work/project", fsScopeTier: "sandboxed" },
  };
}

/** A cost entry. */
export function cost(
  model: string,
  costMicrocents: number,
  priced = true,
): CostEntry {
  return { model, inputTokens: 10, outputTokens: 2, costMicrocents, priced };
}

/** A turn with `rounds` tool rounds of `callsPerRound` calls under `turnKey`. */
export function turn(
  userText: string,
  options: {
    finalText?: string;
    turnKey?: number;
    rounds?: number;
    callsPerRound?: number;
    costs?: CostEntry[];
  } = {},
): TurnCommit {
  const rounds = toolRounds(options.turnKey ?? 1, {
    rounds: options.rounds ?? 0,
    calls: options.callsPerRound ?? 1,
    argsBytes: 18,
    resultBytes: 140,
  });
  return {
    userText,
    rounds,
    finalText: options.finalText ?? `reply to ${userText}`,
    modelId: "gpt-5.4-mini",
    tokensUsed: { input: 10, output: 2 },
    costs: options.costs ?? [],
  };
}

/** A store file in `folder` holding session `s1` (opened with `options`), closed; its path. */
export function fileWithSession(
  folder: string,
  options: SqliteStoreOptions = {},
): string {
  const path = `${folder}/history.db`;
  const store = openSqliteStore(path, options);
  store.create(newSession());
  store.close();
  return path;
}

/** Opens `path` with {@linkcode deps}, hands the store to `use`, closes it. */
export async function withSqlite<T>(
  path: string,
  use: (store: SessionStore) => T | Promise<T>,
): Promise<T> {
  const store = openSqliteStore(path, deps());
  try {
    return await use(store);
  } finally {
    store.close();
  }
}

/**
 * `store`'s optional methods `keys`, asserted present (`what` names them
 * in the failure) and bound to it.
 */
export function methodsOf<K extends keyof SessionStore>(
  store: SessionStore,
  keys: readonly K[],
  what: string,
): Required<Pick<SessionStore, K>> {
  const out: Partial<Record<K, unknown>> = {};
  for (const k of keys) {
    const f: unknown = store[k];
    assert.ok(typeof f === "function", what);
    out[k] = f.bind(store);
  }
  return out as Required<Pick<SessionStore, K>>;
}
