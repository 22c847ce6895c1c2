/**
 * Memory probe for resuming a 10,000-message session (BENCHMARKS.md).
 *
 * Without arguments: builds the session in a temp dir, then runs itself
 * as a fresh process in `measure` mode and prints that process's report.
 * `measure <db>`: opens the store, loads and reconstructs once, and prints
 * RSS / heap before and after plus the peak RSS (`VmHWM`) as JSON.
 *
 * Run: deno run -A tests/store/_fixtures/resume_memory.ts
 * (`-A`: Deno grants `/proc/self/status`, read for the peak RSS, only with
 * all permissions.)
 */
import { openSqliteStore } from "../../../store/sqlite_store.ts";
import { reconstructSessionState } from "../../../store/projection.ts";
import { buildLargeSession } from "./large_session.ts";

const MB = 1024 * 1024;

function peakRssMb(): number {
  const status = Deno.readTextFileSync("/proc/self/status");
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? "0");
  return Math.round(kb / 102.4) / 10;
}

function snapshot(): { rssMb: number; heapUsedMb: number; peakRssMb: number } {
  const m = Deno.memoryUsage();
  return {
    rssMb: Math.round(m.rss / MB * 10) / 10,
    heapUsedMb: Math.round(m.heapUsed / MB * 10) / 10,
    peakRssMb: peakRssMb(),
  };
}

let n = 0;
const deps = { clock: { now: () => 1_767_225_600_000 }, ids: () => `r${n++}` };

if (Deno.args[0] === "measure") {
  const path = Deno.args[1] ?? "";
  const store = openSqliteStore(path, deps);
  const before = snapshot();
  const loaded = store.load("big");
  if (loaded === undefined) throw new Error("Cannot measure: no session");
  const state = reconstructSessionState(loaded.record, loaded.messages);
  const after = snapshot();
  store.close();
  Deno.stdout.writeSync(new TextEncoder().encode(`${
    JSON.stringify({
      messages: loaded.messages.length,
      turns: state.turnCount,
      before,
      after,
      deltaRssMb: Math.round((after.peakRssMb - before.rssMb) * 10) / 10,
    })
  }\n`));
} else {
  const dir = Deno.makeTempDirSync({ prefix: "relavium-mem-" });
  const path = `${dir}/history.db`;
  const store = openSqliteStore(path, deps);
  buildLargeSession(store, "big", 10_000);
  store.close();
  const out = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--allow-all",
      new URL(import.meta.url).pathname,
      "measure",
      path,
    ],
    stdout: "inherit",
    stderr: "inherit",
  }).outputSync();
  Deno.removeSync(dir, { recursive: true });
  if (!out.success) throw new Error("Cannot measure: the probe failed");
}
