/**
 * The persisted turn on Postgres, p50 and p95 over `--turns` turns (default
 * 1,000), after 200 untimed ones:
 *
 * - `commitTurn`: one turn with two tool rounds (6 message rows, 3 cost
 *   rows, totals, turn counter, lease fence) written by the store: one
 *   call of a server-side function, one round trip;
 * - hosted turn: `sendMessage` of a short question answered at once by an
 *   in-memory provider through `openSession` on the Postgres store (lease
 *   held; the call journaled as pending before it leaves, settled, then
 *   the turn committed before `session:turn_completed`);
 * - 8 writers: 8 sessions on one pool, each committing turns concurrently
 *   (turns per second over all of them).
 *
 * The server: `RELAVIUM_TEST_PG_URL`, else a throwaway cluster started
 * here (see `tests/store/_pg.ts`), with `synchronous_commit` on.
 *
 * @example Run it
 * ```sh
 * deno run -A bench/pg_persisted_turn.ts
 * deno run -A bench/pg_persisted_turn.ts --turns 2000
 * ```
 *
 * @module
 */
import { openSession } from "../host/host.ts";
import { openPostgresStore } from "../store/postgres/mod.ts";
import type { AsyncSessionStore, TurnCommit } from "../store/store.ts";
import { testPgUrl } from "../tests/store/_pg.ts";
import { toolRounds } from "../tests/store/_rounds.ts";
import {
  benchRuntime,
  completedTurn,
  countFlag,
  figures,
  instantProvider,
  out,
} from "./_bench_util.ts";
import { BENCH_AGENT, REPLY } from "./persisted_turn.ts";

function turnOf(i: number): TurnCommit {
  return {
    userText: `question ${i}`,
    rounds: toolRounds(i + 1, {
      rounds: 2,
      calls: 1,
      argsBytes: 18,
      resultBytes: 140,
    }),
    finalText: "An answer of a few words.",
    modelId: "gpt-5.4-mini",
    tokensUsed: { input: 20, output: 6 },
    costs: ["a", "b", "c"].map((m) => ({
      model: `gpt-5.4-mini-${m}`,
      inputTokens: 20,
      outputTokens: 6,
      costMicrocents: 10,
      priced: true,
    })),
    turnsUsed: i + 1,
  };
}

async function fresh(url: string, id: string): Promise<AsyncSessionStore> {
  const store = await openPostgresStore({ url });
  await store.create({
    id,
    agentSlug: "bench",
    context: { workingDir: "/work", fsScopeTier: "sandboxed" },
  });
  return store;
}

async function commitTurns(url: string, turns: number): Promise<string> {
  const id = crypto.randomUUID();
  const store = await fresh(url, id);
  await store.acquireLease?.(id, { holderId: crypto.randomUUID() });
  const samples: number[] = [];
  for (let i = -200; i < turns; i++) {
    const turn = turnOf(i + 200);
    const t0 = performance.now();
    await store.commitTurn(id, turn);
    if (i >= 0) samples.push(performance.now() - t0);
  }
  await store.softDelete(id);
  await store.close();
  return figures(samples);
}

async function hostedTurns(url: string, turns: number): Promise<string> {
  let n = 0;
  const clock = { now: () => 1_700_000_000_000 + n };
  const ids = () => `${crypto.randomUUID()}-${n++}`;
  const store = await openPostgresStore({ url, clock, ids });
  const live = await openSession({
    store,
    runtime: benchRuntime(clock, ids, instantProvider("openai", () => REPLY)),
    agent: BENCH_AGENT,
    context: { workingDir: "/work", fsScopeTier: "sandboxed" as const },
    settings: { maxTurns: 1_000_000 },
  });
  const samples: number[] = [];
  for (let i = -200; i < turns; i++) {
    const t0 = performance.now();
    await completedTurn(live.session.sendMessage("A short question?"));
    if (i >= 0) samples.push(performance.now() - t0);
  }
  live.close();
  await store.softDelete(live.sessionId);
  await store.close();
  return figures(samples);
}

async function concurrentWriters(
  url: string,
  writers: number,
  turnsEach: number,
): Promise<string> {
  const store = await openPostgresStore({ url, maxConnections: writers });
  const ids = Array.from({ length: writers }, () => crypto.randomUUID());
  for (const id of ids) {
    await store.create({
      id,
      agentSlug: "bench",
      context: { workingDir: "/work", fsScopeTier: "sandboxed" },
    });
  }
  const t0 = performance.now();
  await Promise.all(ids.map(async (id) => {
    for (let i = 0; i < turnsEach; i++) await store.commitTurn(id, turnOf(i));
  }));
  const seconds = (performance.now() - t0) / 1000;
  for (const id of ids) await store.softDelete(id);
  await store.close();
  return `${Math.round((writers * turnsEach) / seconds)} turns/s`;
}

async function main(): Promise<void> {
  const url = testPgUrl();
  if (url === undefined) {
    out("No Postgres: install it or set RELAVIUM_TEST_PG_URL");
    return;
  }
  const turns = countFlag("turns", 1000);
  out(`Postgres persisted turn, ${turns} turns after 200 untimed\n`);
  out(`| measure | figure |\n`);
  out(`| --- | --- |\n`);
  out(`| commitTurn (6 rows, 3 costs; one round trip) | ${await commitTurns(
    url,
    turns,
  )} |\n`);
  out(`| hosted turn (journal, settle, commit) | ${await hostedTurns(
    url,
    turns,
  )} |\n`);
  out(`| 8 writers on distinct sessions | ${await concurrentWriters(
    url,
    8,
    Math.max(1, Math.floor(turns / 8)),
  )} |\n`);
}

if (import.meta.main) await main();
