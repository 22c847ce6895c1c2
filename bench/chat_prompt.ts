/**
 * Interactive `chat` start-up to its first prompt, on a pseudo-terminal
 * (`tests/_kit/pty_run.py`), side by side for two checkouts: the time from
 * spawning `deno run -A <tree>/cli.ts chat --fixture c.json` until the
 * prompt `> ` is drawn after the banner; then Ctrl-D ends the chat. Each
 * run measures both trees back to back (the order alternates) after two
 * warm-up runs each; the figures are the medians, plus the median of the
 * per-run ratios. Target: the candidate within 1.3× of the baseline.
 *
 * @example Run it
 * ```sh
 * deno run -A bench/chat_prompt.ts --baseline ../main --runs 15
 * ```
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { flag, median, out } from "./_bench_util.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const DRIVER = `${ROOT}tests/_kit/pty_run.py`;
/** A run that draws no prompt within this bound fails the bench. */
const BOUND_MS = 30_000;
const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** Milliseconds from spawn to the first prompt of a chat from `tree`. */
async function toPrompt(tree: string, dir: string): Promise<number> {
  const started = performance.now();
  const child = new Deno.Command("python3", {
    args: [
      DRIVER,
      "120",
      "40",
      "--",
      Deno.execPath(),
      "run",
      "-A",
      `${tree}/cli.ts`,
      "chat",
      "--fixture",
      "c.json",
    ],
    cwd: dir,
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      TERM: "xterm",
      RELAVIUM_HOME: `${dir}/home`,
      NO_COLOR: "1",
    },
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const timer = setTimeout(() => child.kill("SIGKILL"), BOUND_MS);
  let screen = "";
  let ms: number | undefined;
  const writer = child.stdin.getWriter();
  for await (const chunk of child.stdout) {
    screen += decoder.decode(chunk, { stream: true });
    const banner = screen.indexOf("to leave");
    if (ms === undefined && banner !== -1 && screen.includes("> ", banner)) {
      ms = performance.now() - started;
      await writer.write(encoder.encode("\x04"));
    }
  }
  clearTimeout(timer);
  await writer.close().catch(() => {});
  const status = await child.status;
  if (ms === undefined) {
    throw new Error(`No prompt from ${tree} (exit ${status.code})`);
  }
  return ms;
}

if (import.meta.main) {
  const baseline = flag("--baseline", "");
  if (baseline === "") throw new RangeError("--baseline <checkout> is needed");
  const runs = Number(flag("--runs", "11"));
  const trees: Array<[string, string]> = [
    ["baseline", baseline],
    ["candidate", ROOT.replace(/\/$/, "")],
  ];
  const dir = await Deno.makeTempDir({ prefix: "relavium-chat-prompt-" });
  try {
    await Deno.mkdir(`${dir}/home`);
    await Deno.writeTextFile(
      `${dir}/c.json`,
      JSON.stringify({
        schema_version: "1.0",
        provider: "anthropic",
        calls: [],
      }),
    );
    for (const [, tree] of trees) {
      for (let i = 0; i < 2; i++) await toPrompt(tree, dir);
    }
    const times: Record<string, number[]> = { baseline: [], candidate: [] };
    const ratios: number[] = [];
    for (let r = 0; r < runs; r++) {
      const order = r % 2 === 0 ? trees : [...trees].reverse();
      const got: Record<string, number> = {};
      for (const [name, tree] of order) got[name] = await toPrompt(tree, dir);
      const b = got.baseline ?? Number.NaN;
      const c = got.candidate ?? Number.NaN;
      times.baseline?.push(b);
      times.candidate?.push(c);
      ratios.push(c / b);
    }
    const b = median(times.baseline ?? []);
    const c = median(times.candidate ?? []);
    const lo = Math.min(...ratios).toFixed(2);
    const hi = Math.max(...ratios).toFixed(2);
    out(
      `chat to first prompt on a pty, median of ${runs} paired runs\n` +
        `  baseline  ${baseline}: ${b.toFixed(1)} ms\n` +
        `  candidate ${ROOT}: ${c.toFixed(1)} ms\n` +
        `  ratio of medians ${(c / b).toFixed(2)}×, median per-run ratio ${
          median(ratios).toFixed(2)
        }× (range ${lo}–${hi})\n`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
