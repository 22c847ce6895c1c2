/**
 * The persisted turn against bare `node:sqlite` transactions writing the
 * same rows, interleaved in time: each run is one fresh process and file
 * in which blocks of persisted turns and blocks of each bare transaction
 * alternate (the order rotating every round), so the disk's slow and fast
 * seconds fall on all of them alike. A run's figure per pair is the
 * median block mean of one over the other's; the report is the median of
 * the runs, with the range.
 *
 * Measured:
 * - the persisted turn: `sendMessage` of a short question answered at
 *   once by an in-memory provider, through `openSession` on SQLite
 *   (`synchronous = FULL`, the writer lease held), so the call journaled
 *   as pending before it leaves and the turn committed after;
 * - "bare": one transaction writing the turn's rows as they were before
 *   usage coverage (two messages, the session row, the cost upsert);
 * - "same rows": one transaction writing every row the persisted turn
 *   writes (those, the call's journal row inserted and removed, the turn
 *   counter);
 * - "bare with coverage": those rows as the persisted turn writes them,
 *   the journal row in a commit of its own first (`bench/_bare_turn.ts`).
 *
 * Before any round, each kind runs `--warmup` times (default 1,500),
 * interleaved and untimed: the turn's time falls for well over a thousand
 * turns while the JIT compiles its code, and a short warm-up measures
 * that instead of the steady state of a long chat (with 40, the old
 * warm-up, the turn reads about 30% slower; the bare transactions, mostly
 * native code, hardly change).
 *
 * Issue 12's target: the persisted turn at most 1.5× one bare transaction
 * writing the same rows, as the median of at least nine paired runs.
 *
 * @example Run it
 * ```sh
 * deno run -A bench/persisted_turn.ts               # 9 runs
 * deno run -A bench/persisted_turn.ts --warmup 40   # the old, short warm-up
 * deno run -A bench/persisted_turn.ts --runs 15 --rounds 40 --block 25
 * deno run -A bench/persisted_turn.ts --tmp /dev/shm  # no disk: the CPU part
 * ```
 *
 * @module
 */
import { openSession } from "../host/host.ts";
import type { StreamChunk } from "../llm/chunk.ts";
import type { Agent } from "../schema/agent.ts";
import { openSqliteStore } from "../store/sqlite_store.ts";
import { openBareTurn } from "./_bare_turn.ts";
import {
  benchRuntime,
  completedTurn,
  countFlag,
  flag,
  instantProvider,
  median,
  out,
} from "./_bench_util.ts";

/** The provider's answer to every turn: a few words and their usage. */
export const REPLY: StreamChunk[] = [
  { type: "text_delta", text: "An answer of a few words." },
  {
    type: "stop",
    stopReason: "stop",
    usage: { inputTokens: 20, outputTokens: 6 },
  },
];

/** The agent of the benched session. */
export const BENCH_AGENT: Agent = {
  id: "bench",
  model: "gpt-5.4-mini",
  provider: "openai",
  system_prompt: "You help.",
  // Each request carries only the pending message: every turn does the
  // same work however many the session holds.
  memory: { type: "none" },
};

interface RunFigures {
  turnUs: number;
  bareUs: number;
  sameRowsUs: number;
  coverageUs: number;
}

/** One run, in this process: blocks alternate, block means in µs. */
async function oneRun(
  rounds: number,
  block: number,
  warmup: number,
  tmp: string,
): Promise<RunFigures> {
  let n = 0;
  const clock = { now: () => 1_700_000_000_000 + n };
  const ids = () => `id-${n++}`;
  const provider = instantProvider("openai", () => REPLY);
  const dir = await Deno.makeTempDir(tmp === "" ? {} : { dir: tmp });
  const path = `${dir}/history.db`;
  const store = openSqliteStore(path, { clock, ids });
  const runtime = benchRuntime(clock, ids, provider);
  const live = openSession({
    store,
    runtime,
    agent: BENCH_AGENT,
    context: { workingDir: "/work", fsScopeTier: "sandboxed" as const },
    settings: { maxTurns: 1_000_000 },
  });
  // The bare transactions write a file of their own, made by the store:
  // two connections on one file would empty each other's page cache at
  // every switch, which no single writer meets.
  const barePath = `${dir}/bare.db`;
  const bareStore = openSqliteStore(barePath, { clock, ids });
  bareStore.create({
    id: "bare",
    agentSlug: "bench",
    context: { workingDir: "/work", fsScopeTier: "sandboxed" },
  });
  bareStore.close();
  const bare = openBareTurn(barePath, "bare", ids, clock.now);
  const kinds: Array<[keyof RunFigures, () => unknown]> = [
    [
      "turnUs",
      () => completedTurn(live.session.sendMessage("A short question?")),
    ],
    ["bareUs", () => bare.turn()],
    ["sameRowsUs", () => bare.sameRows()],
    ["coverageUs", () => bare.turnWithCoverage()],
  ];
  const means: Record<keyof RunFigures, number[]> = {
    turnUs: [],
    bareUs: [],
    sameRowsUs: [],
    coverageUs: [],
  };
  // Warm-up (see the module doc), then two rounds, not counted.
  for (let i = 0; i < warmup; i++) {
    for (const [, step] of kinds) await step();
  }
  for (let round = -2; round < rounds; round++) {
    for (let k = 0; k < kinds.length; k++) {
      const kind = kinds[(k + round + 2) % kinds.length];
      if (kind === undefined) continue;
      const [name, step] = kind;
      const t0 = performance.now();
      for (let i = 0; i < block; i++) await step();
      const us = (performance.now() - t0) / block * 1000;
      if (round >= 0) means[name].push(us);
    }
  }
  bare.close();
  await live.close();
  await Deno.remove(dir, { recursive: true });
  return {
    turnUs: median(means.turnUs),
    bareUs: median(means.bareUs),
    sameRowsUs: median(means.sameRowsUs),
    coverageUs: median(means.coverageUs),
  };
}

async function main(): Promise<number> {
  const rounds = countFlag("--rounds", 30);
  const block = countFlag("--block", 20);
  const warmup = countFlag("--warmup", 1_500);
  const tmp = flag("--tmp", "");
  if (Deno.args.includes("--child")) {
    out(JSON.stringify(await oneRun(rounds, block, warmup, tmp)));
    return 0;
  }
  const runs = countFlag("--runs", 9);
  out(
    `persisted turn vs bare node:sqlite, ${runs} runs of ${rounds} rounds × ${block}-iteration blocks after ${warmup} warm-up steps of each\n\n`,
  );
  out(
    "| run | load avg | persisted turn | bare | same rows | bare with coverage | turn / bare | turn / same rows | turn / bare with coverage |\n",
  );
  out("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
  const ratios = {
    bare: [] as number[],
    same: [] as number[],
    cov: [] as number[],
  };
  const x = (v: number) => `${v.toFixed(2)}×`;
  const us = (v: number) => `${v.toFixed(1)} µs`;
  for (let i = 1; i <= runs; i++) {
    const load = (await Deno.readTextFile("/proc/loadavg").catch(() => "?"))
      .split(" ")[0];
    const r = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        // All: a `--tmp` under /dev needs it.
        "--allow-all",
        new URL(import.meta.url).pathname,
        "--child",
        "--rounds",
        String(rounds),
        "--block",
        String(block),
        "--warmup",
        String(warmup),
        ...(tmp === "" ? [] : ["--tmp", tmp]),
      ],
      stdout: "piped",
      stderr: "inherit",
    }).output();
    if (r.code !== 0) throw new Error(`run ${i} failed (exit ${r.code})`);
    const f = JSON.parse(new TextDecoder().decode(r.stdout)) as RunFigures;
    ratios.bare.push(f.turnUs / f.bareUs);
    ratios.same.push(f.turnUs / f.sameRowsUs);
    ratios.cov.push(f.turnUs / f.coverageUs);
    out(
      `| ${i} | ${load} | ${us(f.turnUs)} | ${us(f.bareUs)} | ${
        us(f.sameRowsUs)
      } | ${us(f.coverageUs)} | ${x(f.turnUs / f.bareUs)} | ${
        x(f.turnUs / f.sameRowsUs)
      } | ${x(f.turnUs / f.coverageUs)} |\n`,
    );
  }
  const summary = (v: number[]) =>
    `median ${x(median(v))} (range ${x(Math.min(...v))}–${x(Math.max(...v))})`;
  out(
    `\nturn / bare: ${summary(ratios.bare)}; turn / same rows: ${
      summary(ratios.same)
    }; turn / bare with coverage: ${summary(ratios.cov)}\n`,
  );
  return 0;
}

if (import.meta.main) Deno.exit(await main());
