/**
 * Long sessions (issue 12): a piped N-turn CLI chat on a cassette, as a
 * script rather than `deno bench` because it times one child process over
 * thousands of turns.
 *
 * Builds a cassette of N instant text replies and an input of N lines
 * (the texts of `bench/_long_session.ts`), then runs
 *
 *   deno run -A cli.ts --json chat --fixture c.json
 *
 * in a temp folder (`RELAVIUM_HOME` there, `[chat] max_turns = N`, every
 * other setting default: the built-in chat agent on `claude-sonnet-4-6`,
 * automatic compaction on over its 1M-token window, so nothing compacts)
 * with the whole input piped to stdin at once, as `chat < lines.txt` would.
 *
 * Per-turn time: the child writes each event to stdout synchronously, one
 * line each, so the time between the arrivals of two consecutive
 * `session:turn_completed` lines here (`performance.now()`, read as soon as
 * the pipe has data) is one whole turn of the chat loop: reading the line,
 * the engine turn, the commit to SQLite, printing. Turn k's time is the
 * interval ending at its `turn_completed` (turn 1 has none: it includes
 * start-up). The events' own `timestamp`s (ms resolution) give the same
 * windows as a mean, a cross-check printed beside the medians; a pipe read
 * that delivered several `turn_completed` lines at once is counted
 * (`coalesced`), since it would blur the medians.
 *
 * Peak RSS of the child: `/usr/bin/time -v` (maximum resident set size)
 * when present, else the highest `VmHWM` read from `/proc/<pid>/status`.
 * `VmRSS` / `VmHWM` are also sampled along the chat (`--every`).
 *
 * Targets: median per-turn time of the last 100 turns ≤ 3× that of turns
 * 2–101; peak RSS < 150 MB at 3,000 turns, < 200 MB at 10,000.
 *
 * @example Run it
 * ```sh
 * deno run -A bench/long_chat.ts                  # 3,000 turns
 * deno run -A bench/long_chat.ts --turns 10000    # ~4 min before issue 12
 * deno run -A bench/long_chat.ts --out times.json # also the per-turn times
 * ```
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { countFlag, exists, flag, median, out } from "./_bench_util.ts";
import { answerText, questionText } from "./_long_session.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

interface Sample {
  turn: number;
  rssMb: number;
  hwmMb: number;
}

/** `VmRSS` and `VmHWM` of `pid` in MB, `undefined` once it is gone. */
function memoryOf(pid: number): { rss: number; hwm: number } | undefined {
  try {
    const text = Deno.readTextFileSync(`/proc/${pid}/status`);
    const kb = (key: string) =>
      Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(text)?.[1] ?? 0);
    return { rss: kb("VmRSS") / 1024, hwm: kb("VmHWM") / 1024 };
  } catch {
    return undefined;
  }
}

/** The deno process: `/usr/bin/time`'s only child, or the child itself. */
function denoPid(pid: number, wrapped: boolean): number | undefined {
  if (!wrapped) return pid;
  try {
    const kids = Deno.readTextFileSync(`/proc/${pid}/task/${pid}/children`);
    const first = kids.trim().split(/\s+/)[0];
    return first === undefined || first === "" ? undefined : Number(first);
  } catch {
    return undefined;
  }
}

interface Chat {
  code: number;
  stderr: string;
  /** Arrival time (ms, `performance.now()`) of each `turn_completed`. */
  arrivals: number[];
  /** Its `timestamp` (epoch ms). */
  stamps: number[];
  stopReasons: Map<string, number>;
  types: Map<string, number>;
  coalesced: number;
  samples: Sample[];
  peakMb: number;
  peakSource: string;
  wallMs: number;
}

async function runChat(
  dir: string,
  turns: number,
  every: number,
  heap: boolean,
): Promise<Chat> {
  const wrapped = await exists("/usr/bin/time");
  const deno = [
    "run",
    "-A",
    ...(heap
      ? ["--v8-flags=--expose-gc", "--preload", `${ROOT}bench/_heap_probe.ts`]
      : []),
    `${ROOT}cli.ts`,
    "--json",
    "chat",
    "--fixture",
    "c.json",
  ];
  const started = performance.now();
  const child = new Deno.Command(
    wrapped ? "/usr/bin/time" : Deno.execPath(),
    {
      args: wrapped
        ? ["-v", "-o", `${dir}/time.txt`, Deno.execPath(), ...deno]
        : deno,
      cwd: dir,
      env: {
        RELAVIUM_HOME: `${dir}/home`,
        NO_COLOR: "1",
        ...(heap
          ? {
            RELAVIUM_BENCH_HEAP_LOG: `${dir}/heap.ndjson`,
            RELAVIUM_BENCH_HEAP_EVERY: String(every),
          }
          : {}),
      },
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    },
  ).spawn();
  const input = (async () => {
    const w = child.stdin.getWriter();
    await w.write(await Deno.readFile(`${dir}/lines.txt`));
    await w.close();
  })();
  const stderr = new Response(child.stderr).text();

  const arrivals: number[] = [];
  const stamps: number[] = [];
  const stopReasons = new Map<string, number>();
  const types = new Map<string, number>();
  const samples: Sample[] = [];
  let coalesced = 0;
  let hwm = 0;
  let pid: number | undefined;
  const sample = (turn: number): void => {
    pid ??= denoPid(child.pid, wrapped);
    const m = pid === undefined ? undefined : memoryOf(pid);
    if (m === undefined) return;
    hwm = Math.max(hwm, m.hwm);
    samples.push({ turn, rssMb: m.rss, hwmMb: m.hwm });
  };
  let buffer = "";
  const decoder = new TextDecoder();
  for await (const chunk of child.stdout) {
    const now = performance.now();
    buffer += decoder.decode(chunk, { stream: true });
    let completedHere = 0;
    for (;;) {
      const nl = buffer.indexOf("\n");
      if (nl === -1) break;
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      const event = JSON.parse(line) as {
        type: string;
        timestamp: string;
        stopReason?: string;
      };
      types.set(event.type, (types.get(event.type) ?? 0) + 1);
      if (event.type !== "session:turn_completed") continue;
      completedHere++;
      arrivals.push(now);
      stamps.push(Date.parse(event.timestamp));
      const reason = event.stopReason ?? "?";
      stopReasons.set(reason, (stopReasons.get(reason) ?? 0) + 1);
      const turn = arrivals.length;
      if (turn === 1 || turn % every === 0 || turn === turns) sample(turn);
    }
    if (completedHere > 1) coalesced += completedHere - 1;
  }
  await input;
  const status = await child.status;
  const wallMs = performance.now() - started;
  let peakMb = hwm;
  let peakSource = `VmHWM polled at ${samples.length} points`;
  if (wrapped) {
    const report = await Deno.readTextFile(`${dir}/time.txt`);
    const kb = /Maximum resident set size \(kbytes\): (\d+)/.exec(report)?.[1];
    if (kb === undefined) throw new Error(`/usr/bin/time: ${report}`);
    peakMb = Number(kb) / 1024;
    peakSource = "/usr/bin/time -v";
  }
  return {
    code: status.code,
    stderr: await stderr,
    arrivals,
    stamps,
    stopReasons,
    types,
    coalesced,
    samples,
    peakMb,
    peakSource,
    wallMs,
  };
}

interface HeapSample {
  turn: number;
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  live?: number;
  max: Omit<HeapSample, "turn" | "max" | "live">;
}

/**
 * `--heap`: the child's `Deno.memoryUsage()` after turn 1 and every
 * `--every` turns (`bench/_heap_probe.ts`), and the maximum of each field
 * over all turns.
 */
async function heapTable(path: string): Promise<void> {
  const samples = (await Deno.readTextFile(path)).trim().split("\n").map(
    (line) => JSON.parse(line) as HeapSample,
  );
  const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
  const row = (label: string, h: Omit<HeapSample, "turn" | "max">): string =>
    `| ${label} | ${mb(h.rss)} | ${mb(h.heapUsed)} | ${
      h.live === undefined ? "" : mb(h.live)
    } | ${mb(h.heapTotal)} | ${mb(h.external)} | ${
      mb(h.rss - h.heapTotal - h.external)
    } |\n`;
  out(
    "\n`Deno.memoryUsage()` of the child (`--heap`; the last column is the rest of the RSS: code, V8 and Rust allocations outside the JS heap, SQLite's cache):\n\n| after turn | rss | heap used | live heap (after a forced full GC) | heap total | external | rss − heap total − external |\n| --- | --- | --- | --- | --- | --- | --- |\n",
  );
  for (const h of samples) out(row(String(h.turn), h));
  const last = samples.at(-1);
  if (last !== undefined) {
    // Maxima of different moments: their difference means nothing.
    out(
      row("max over all turns (each column alone)", last.max).replace(
        /\| [^|]+ \|\n$/,
        "| |\n",
      ),
    );
  }
}

async function mainBench(): Promise<number> {
  const turns = countFlag("--turns", 3_000);
  const every = countFlag("--every", 500);
  const outFile = flag("--out", "");
  const heap = Deno.args.includes("--heap");
  if (turns < 201) throw new RangeError("--turns needs N ≥ 201");
  const dir = await Deno.makeTempDir({ prefix: "relavium-long-chat-" });
  try {
    await Deno.mkdir(`${dir}/home`);
    await Deno.writeTextFile(
      `${dir}/home/config.toml`,
      `[chat]\nmax_turns = ${turns}\n`,
    );
    const calls = [];
    const lines: string[] = [];
    for (let k = 1; k <= turns; k++) {
      calls.push([
        { type: "text_delta", text: answerText(k) },
        {
          type: "stop",
          stopReason: "stop",
          usage: { inputTokens: 20, outputTokens: 12 },
        },
      ]);
      lines.push(questionText(k));
    }
    await Deno.writeTextFile(
      `${dir}/c.json`,
      JSON.stringify({ schema_version: "1.0", provider: "anthropic", calls }),
    );
    await Deno.writeTextFile(`${dir}/lines.txt`, `${lines.join("\n")}\n`);

    const load = await Deno.readTextFile("/proc/loadavg").catch(() => "?");
    const chat = await runChat(dir, turns, every, heap);
    const done = chat.arrivals.length;
    const problems: string[] = [];
    if (chat.code !== 0) problems.push(`exit ${chat.code} (expected 0)`);
    if (done !== turns) problems.push(`${done} turns completed of ${turns}`);
    if ((chat.stopReasons.get("stop") ?? 0) !== done) {
      problems.push(`stop reasons ${JSON.stringify([...chat.stopReasons])}`);
    }
    for (const t of ["session:compacted", "session:trimmed"]) {
      if (chat.types.has(t)) problems.push(`${chat.types.get(t)} × ${t}`);
    }
    if (chat.stderr !== "") problems.push(`stderr: ${chat.stderr.trim()}`);
    if (problems.length > 0) {
      out(`long chat failed: ${problems.join("; ")}\n`);
      return 1;
    }

    // perTurn[k] = time of turn k + 2 (turn 1 has no previous arrival).
    const perTurn = chat.arrivals.slice(1).map((t, i) =>
      t - (chat.arrivals[i] ?? t)
    );
    const first = perTurn.slice(0, 100); // turns 2–101
    const last = perTurn.slice(-100); // turns N−99 … N
    const stampMean = (from: number, to: number): number =>
      ((chat.stamps[to - 1] ?? 0) - (chat.stamps[from - 2] ?? 0)) /
      (to - from + 1);
    const mFirst = median(first);
    const mLast = median(last);
    const ratio = mLast / mFirst;
    const mb = (v: number) => `${v.toFixed(1)} MB`;
    const rssTarget = turns <= 3_000 ? 150 : 200;
    out(
      `Deno ${Deno.version.deno}; ${
        turns.toLocaleString("en-US")
      }-turn piped chat, --json, cassette; load average ${
        load.split(" ").slice(0, 3).join(" ")
      } before the run\n\n`,
    );
    out("| measurement | value | target | met |\n| --- | --- | --- | --- |\n");
    out(
      `| median per-turn time, turns 2–101 | ${
        mFirst.toFixed(2)
      } ms (timestamps: mean ${stampMean(2, 101).toFixed(2)} ms) | | |\n`,
    );
    out(
      `| median per-turn time, turns ${turns - 99}–${turns} | ${
        mLast.toFixed(2)
      } ms (timestamps: mean ${
        stampMean(turns - 99, turns).toFixed(2)
      } ms) | | |\n`,
    );
    out(
      `| ratio last / first | ${ratio.toFixed(2)}× | ≤ 3× | ${
        ratio <= 3 ? "yes" : "**no**"
      } |\n`,
    );
    out(
      `| peak RSS of the child (${chat.peakSource}) | ${
        mb(chat.peakMb)
      } | < ${rssTarget} MB | ${
        chat.peakMb < rssTarget ? "yes" : "**no**"
      } |\n`,
    );
    out(
      `| wall, whole chat (start-up to exit) | ${
        (chat.wallMs / 1000).toFixed(1)
      } s | | |\n`,
    );
    out(
      `| first turn_completed after spawn (start-up + turn 1) | ${
        (chat.arrivals[0] ?? 0).toFixed(0)
      } ms after the run began | | |\n`,
    );
    out(
      `| pipe reads with more than one turn_completed | ${chat.coalesced} | | |\n\n`,
    );
    out("Median per-turn time by slice of 100 turns, and memory samples:\n\n");
    out("| turns | median per turn |\n| --- | --- |\n");
    const step = Math.max(100, Math.floor(turns / 10 / 100) * 100);
    for (let from = 2; from + 99 <= turns; from += step) {
      out(
        `| ${from}–${from + 99} | ${
          median(perTurn.slice(from - 2, from + 98)).toFixed(2)
        } ms |\n`,
      );
    }
    out("\n| after turn | VmRSS | VmHWM |\n| --- | --- | --- |\n");
    for (const s of chat.samples) {
      out(`| ${s.turn} | ${mb(s.rssMb)} | ${mb(s.hwmMb)} |\n`);
    }
    if (heap) await heapTable(`${dir}/heap.ndjson`);
    if (outFile !== "") {
      await Deno.writeTextFile(
        outFile,
        JSON.stringify({
          turns,
          perTurnMs: perTurn,
          samples: chat.samples,
          peakMb: chat.peakMb,
        }),
      );
    }
    return 0;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) Deno.exit(await mainBench());
