/**
 * Whole-process CLI start-up figures, as a script rather than
 * `deno bench` because it times separate processes:
 *
 * - (a) `deno run cli.ts --version` vs a bare `deno run` hello-world file
 *   (target: within 1.3×);
 * - (b) a one-shot `agent run` cassette turn, wall time (target < 250 ms);
 * - (c) peak memory of that turn (target < 80 MB), from `/usr/bin/time -v`
 *   when present, else by polling `VmHWM` in `/proc/<pid>/status`.
 *
 * Each figure is the median of `--runs` runs (default 15, taken
 * round-robin across the measurements) after two warm-up runs each, so module caches are hot, as on a user's machine; the
 * minimum is printed too (the least disturbed run on a shared machine).
 * Reference rows, not targets: the same turn with a global `config.toml`
 * (the TOML reader and the config schema load), a `read_file` tool turn
 * (two cassette calls; the tool registry loads), and the same turn from
 * the `deno bundle` output.
 *
 * @example Run it
 * ```sh
 * deno task bench:cli            # or: deno run -A bench/cli_startup.ts --runs 25
 * ```
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { exists, median, out } from "./_bench_util.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const encoder = new TextEncoder();

interface Job {
  args: string[];
  cwd: string;
  env?: Record<string, string>;
  stdin?: string;
}

interface Ran {
  ms: number;
  code: number;
  stderr: string;
}

async function run(cmd: string, job: Job): Promise<Ran> {
  const started = performance.now();
  const child = new Deno.Command(cmd, {
    args: job.args,
    cwd: job.cwd,
    ...(job.env === undefined ? {} : { env: job.env }),
    stdin: job.stdin === undefined ? "null" : "piped",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  if (job.stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(encoder.encode(job.stdin));
    await w.close();
  }
  const result = await child.output();
  return {
    ms: performance.now() - started,
    code: result.code,
    stderr: new TextDecoder().decode(result.stderr),
  };
}

/**
 * Times every job `runs` times, round-robin (one run of each job per
 * round), so a change of machine load affects all jobs alike.
 */
async function timedRounds(
  jobs: readonly Job[],
  runs: number,
): Promise<number[][]> {
  const deno = Deno.execPath();
  for (const job of jobs) {
    for (let i = 0; i < 2; i++) {
      const warm = await run(deno, job);
      if (warm.code !== 0) {
        throw new Error(
          `Warm-up failed (exit ${warm.code}): deno ${
            job.args.join(" ")
          }\n${warm.stderr}`,
        );
      }
    }
  }
  const times: number[][] = jobs.map(() => []);
  for (let i = 0; i < runs; i++) {
    for (const [j, job] of jobs.entries()) {
      times[j]?.push((await run(deno, job)).ms);
    }
  }
  return times;
}

/** Peak RSS in MB via `/usr/bin/time -v`. */
async function peakWithTime(job: Job): Promise<number> {
  const r = await run("/usr/bin/time", {
    ...job,
    args: ["-v", Deno.execPath(), ...job.args],
  });
  const kb = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr)?.[1];
  if (r.code !== 0 || kb === undefined) {
    throw new Error(`/usr/bin/time failed (exit ${r.code}):\n${r.stderr}`);
  }
  return Number(kb) / 1024;
}

/** Peak RSS in MB by polling `VmHWM` until the process exits (bounded). */
async function peakWithProc(job: Job): Promise<number> {
  const child = new Deno.Command(Deno.execPath(), {
    args: job.args,
    cwd: job.cwd,
    ...(job.env === undefined ? {} : { env: job.env }),
    stdin: job.stdin === undefined ? "null" : "piped",
    stdout: "null",
    stderr: "null",
  }).spawn();
  if (job.stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(encoder.encode(job.stdin));
    await w.close();
  }
  let done = false;
  const status = child.status.then((s) => {
    done = true;
    return s;
  });
  let peakKb = 0;
  for (let i = 0; i < 5000 && !done; i++) {
    try {
      const text = await Deno.readTextFile(`/proc/${child.pid}/status`);
      const kb = Number(/VmHWM:\s+(\d+) kB/.exec(text)?.[1] ?? 0);
      if (kb > peakKb) peakKb = kb;
    } catch {
      break; // the process is gone
    }
    await new Promise((r) => setTimeout(r, 1));
  }
  await status;
  return peakKb / 1024;
}

function parseRuns(args: readonly string[]): number {
  const i = args.indexOf("--runs");
  const n = i === -1 ? 15 : Number(args[i + 1]);
  if (!Number.isInteger(n) || n < 1) throw new RangeError("--runs needs N ≥ 1");
  return n;
}

async function mainBench(): Promise<number> {
  const runs = parseRuns(Deno.args);
  const tmp = await Deno.makeTempDir({ prefix: "relavium-bench-" });
  try {
    await Deno.writeTextFile(
      `${tmp}/hello.ts`,
      'Deno.stdout.writeSync(new TextEncoder().encode("hello\\n"));\n',
    );
    await Deno.writeTextFile(
      `${tmp}/mini.agent.yaml`,
      "id: mini\nmodel: gpt-5.4-mini\nprovider: openai\nsystem_prompt: Be terse.\n",
    );
    await Deno.writeTextFile(
      `${tmp}/c.json`,
      JSON.stringify({
        schema_version: "1.0",
        provider: "openai",
        calls: [[
          { type: "text_delta", text: "Done." },
          {
            type: "stop",
            stopReason: "stop",
            usage: { inputTokens: 9, outputTokens: 1 },
          },
        ]],
      }),
    );
    // A tool turn: read_file on a small file, then the answer (two calls).
    await Deno.mkdir(`${tmp}/ws`);
    await Deno.writeTextFile(`${tmp}/ws/notes.md`, "# Notes\n\nShip it.\n");
    await Deno.writeTextFile(
      `${tmp}/tool.agent.yaml`,
      "id: reader\nmodel: gpt-5.4-mini\nprovider: openai\nsystem_prompt: Read.\ntools: [read_file]\n",
    );
    const stop = (reason: string) => ({
      type: "stop",
      stopReason: reason,
      usage: { inputTokens: 9, outputTokens: 1 },
    });
    await Deno.writeTextFile(
      `${tmp}/tool.json`,
      JSON.stringify({
        schema_version: "1.0",
        provider: "openai",
        calls: [[
          { type: "tool_call_start", id: "c1", name: "read_file" },
          {
            type: "tool_call_delta",
            id: "c1",
            argsJsonDelta: '{"path":"notes.md"}',
          },
          { type: "tool_call_end", id: "c1" },
          stop("tool_use"),
        ], [{ type: "text_delta", text: "Ship it." }, stop("stop")]],
      }),
    );
    await Deno.mkdir(`${tmp}/cfg`);
    await Deno.writeTextFile(
      `${tmp}/cfg/config.toml`,
      '[preferences]\ndefault_model = "gpt-5.4-mini"\n\n[chat]\nmax_turns = 20\nfs_scope = "sandboxed"\n',
    );
    const cli = `${ROOT}cli.ts`;
    const bundle = `${tmp}/relavium.js`;
    const hello: Job = { args: ["run", `${tmp}/hello.ts`], cwd: tmp };
    const version: Job = { args: ["run", cli, "--version"], cwd: ROOT };
    const turnArgs = (entry: string): string[] => [
      "run",
      "--no-prompt",
      "--allow-read",
      "--allow-env",
      entry,
      "agent",
      "run",
      "mini.agent.yaml",
      "--fixture",
      "c.json",
    ];
    const turn: Job = {
      args: turnArgs(cli),
      cwd: tmp,
      env: { RELAVIUM_HOME: `${tmp}/home` },
      stdin: "hello\n",
    };
    const withConfig: Job = {
      ...turn,
      env: { RELAVIUM_HOME: `${tmp}/cfg` },
    };
    const toolTurn: Job = {
      args: [
        "run",
        "--no-prompt",
        "--allow-read",
        "--allow-env",
        cli,
        "--cwd",
        "ws",
        "agent",
        "run",
        "../tool.agent.yaml",
        "--fixture",
        "../tool.json",
      ],
      cwd: tmp,
      env: { RELAVIUM_HOME: `${tmp}/home` },
      stdin: "What do my notes say?\n",
    };
    const bundled = await run(Deno.execPath(), {
      args: [
        "bundle",
        "--quiet",
        "--platform",
        "deno",
        "--output",
        bundle,
        cli,
      ],
      cwd: ROOT,
    });

    const jobs = [hello, version, turn, withConfig, toolTurn];
    if (bundled.code === 0) jobs.push({ ...turn, args: turnArgs(bundle) });
    const [
      sHello = [],
      sVersion = [],
      sTurn = [],
      sConfig = [],
      sTool = [],
      sBundle = [],
    ] = await timedRounds(jobs, runs);
    const useTime = await exists("/usr/bin/time");
    const peaks: number[] = [];
    for (let i = 0; i < Math.min(runs, 7); i++) {
      peaks.push(await (useTime ? peakWithTime(turn) : peakWithProc(turn)));
    }

    const tHello = median(sHello);
    const tVersion = median(sVersion);
    const tTurn = median(sTurn);
    const mem = median(peaks);
    const ratio = tVersion / tHello;
    const mark = (ok: boolean): string => ok ? "yes" : "**no**";
    const ms = (v: readonly number[], times?: number): string =>
      `${median(v).toFixed(1)} ms${
        times === undefined ? "" : ` (${times.toFixed(2)}×)`
      } | ${Math.min(...v).toFixed(1)} ms`;
    const load = await Deno.readTextFile("/proc/loadavg").catch(() => "? ? ?");
    out(
      `Deno ${Deno.version.deno}; median and min of ${runs} runs after 2 warm-ups; load average ${
        load.split(" ").slice(0, 3).join(" ")
      }\n\n`,
    );
    out("| measurement | median | min | target | met |\n");
    out("| --- | --- | --- | --- | --- |\n");
    out(`| bare \`deno run hello.ts\` | ${ms(sHello)} | baseline | |\n`);
    out(
      `| \`deno run cli.ts --version\` (× hello-world) | ${
        ms(sVersion, ratio)
      } | ≤ 1.3× | ${mark(ratio <= 1.3)} |\n`,
    );
    out(
      `| one-shot \`agent run\` cassette turn, wall | ${
        ms(sTurn)
      } | < 250 ms | ${mark(tTurn < 250)} |\n`,
    );
    out(
      `| peak RSS of that turn (${
        useTime ? "/usr/bin/time -v" : "VmHWM polling"
      }, ${peaks.length} runs) | ${mem.toFixed(1)} MB | ${
        Math.min(...peaks).toFixed(1)
      } MB | < 80 MB | ${mark(mem < 80)} |\n`,
    );
    out(
      `| reference: the same turn with a global \`config.toml\` | ${
        ms(sConfig)
      } | | |\n`,
    );
    out(
      `| reference: a \`read_file\` tool turn (two cassette calls) | ${
        ms(sTool)
      } | | |\n`,
    );
    out(
      sBundle.length === 0
        ? "| reference: the turn from the `deno bundle` output | unavailable | | | |\n"
        : `| reference: the turn from the \`deno bundle\` output | ${
          ms(sBundle)
        } | | |\n`,
    );
    return 0;
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
}

if (import.meta.main) Deno.exit(await mainBench());
