/**
 * Paired runs of two benches of one `deno bench` file: each run is one
 * `deno bench --json` process measuring both, back to back, and gives one
 * ratio (candidate avg / baseline avg); the figure is the median ratio of
 * the runs, with its range. On a shared machine one run's ratio moves with
 * the neighbours; the median of nine or more does much less.
 *
 * Default pair (issue 12: "the persisted turn's overhead at most 1.5× one
 * bare `node:sqlite` transaction writing the same rows, as the median of at
 * least nine paired runs"): in `bench/session_bench.ts`, "turn, persisted
 * to SQLite (synchronous=FULL)" over "bare node:sqlite transaction writing
 * the same rows" (every row the turn writes, usage coverage's included, in
 * one transaction; `--baseline "bare node:sqlite transaction: the turn's
 * rows before usage coverage"` pairs it with the rows alone).
 *
 * @example Run it
 * ```sh
 * deno run -A bench/paired_runs.ts              # 9 runs of the default pair
 * deno run -A bench/paired_runs.ts --runs 15
 * deno run -A bench/paired_runs.ts --file bench/store_bench.ts \
 *   --baseline "bare node:sqlite transaction, same rows" \
 *   --candidate "SessionStore.commitTurn (sqlite)"
 * ```
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { flag, median, out } from "./_bench_util.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

interface BenchStats {
  avg: number;
  p75: number;
}

/** One `deno bench --json` run of the two named benches: their stats in µs. */
async function pairedRun(
  file: string,
  names: readonly string[],
): Promise<Map<string, BenchStats>> {
  const filter = `/^(${names.map(escapeRegExp).join("|")})$/`;
  const r = await new Deno.Command(Deno.execPath(), {
    args: [
      "bench",
      "--json",
      "--allow-read",
      "--allow-write",
      "--filter",
      filter,
      file,
    ],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (r.code !== 0) {
    throw new Error(
      `deno bench failed (exit ${r.code}):\n${
        new TextDecoder().decode(r.stderr)
      }`,
    );
  }
  const report = JSON.parse(new TextDecoder().decode(r.stdout)) as {
    benches: Array<{
      name: string;
      results: Array<{ ok?: { avg: number; p75: number } }>;
    }>;
  };
  const stats = new Map<string, BenchStats>();
  for (const b of report.benches) {
    const ok = b.results[0]?.ok;
    if (ok !== undefined) {
      stats.set(b.name, { avg: ok.avg / 1e3, p75: ok.p75 / 1e3 });
    }
  }
  for (const name of names) {
    if (!stats.has(name)) throw new Error(`no result for "${name}"`);
  }
  return stats;
}

async function mainPaired(): Promise<number> {
  const runs = Number(flag("--runs", "9"));
  if (!Number.isInteger(runs) || runs < 1) {
    throw new RangeError("--runs needs N ≥ 1");
  }
  const file = flag("--file", "bench/session_bench.ts");
  const baseline = flag(
    "--baseline",
    "bare node:sqlite transaction writing the same rows",
  );
  const candidate = flag(
    "--candidate",
    "turn, persisted to SQLite (synchronous=FULL)",
  );
  out(`${file}: "${candidate}" / "${baseline}", ${runs} paired runs\n\n`);
  out(
    "| run | load avg | baseline avg | candidate avg | ratio | p75 ratio |\n",
  );
  out("| --- | --- | --- | --- | --- | --- |\n");
  const ratios: number[] = [];
  const p75Ratios: number[] = [];
  const bases: number[] = [];
  const cands: number[] = [];
  for (let i = 1; i <= runs; i++) {
    const load = (await Deno.readTextFile("/proc/loadavg").catch(() => "?"))
      .split(" ")[0];
    const stats = await pairedRun(file, [baseline, candidate]);
    const b = stats.get(baseline);
    const c = stats.get(candidate);
    if (b === undefined || c === undefined) throw new Error("missing stats");
    const ratio = c.avg / b.avg;
    ratios.push(ratio);
    p75Ratios.push(c.p75 / b.p75);
    bases.push(b.avg);
    cands.push(c.avg);
    out(
      `| ${i} | ${load} | ${b.avg.toFixed(1)} µs | ${c.avg.toFixed(1)} µs | ${
        ratio.toFixed(2)
      }× | ${(c.p75 / b.p75).toFixed(2)}× |\n`,
    );
  }
  out(
    `\nmedian ratio ${median(ratios).toFixed(2)}× (range ${
      Math.min(...ratios).toFixed(2)
    }–${Math.max(...ratios).toFixed(2)}×; p75 ratio median ${
      median(p75Ratios).toFixed(2)
    }×); median baseline ${median(bases).toFixed(1)} µs, candidate ${
      median(cands).toFixed(1)
    } µs\n`,
  );
  return 0;
}

if (import.meta.main) Deno.exit(await mainPaired());
