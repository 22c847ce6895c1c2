/**
 * Dispatch overhead of a `read_file` call through the whole tool pipeline
 * (exact-name lookup, grant, effective args, strict parse, secret-taint
 * check, lexical jail and floors, guardrails, Deno permission queries,
 * roots and target `realpath`, `stat`, read, binary probe, bounding,
 * outcome) against the read itself. Target: < 200 µs beyond the read.
 *
 *   deno bench --allow-read --allow-write bench/tools_bench.ts
 *
 * Run as a script (`deno run --allow-read --allow-write
 * bench/tools_bench.ts`) it interleaves the three cases in one process
 * (2,000 warm-up rounds, then 20,000 timed rounds) and prints the median
 * and p90 of each and the median overheads: steadier than `deno bench`
 * on a shared machine.
 */
import { builtinTools } from "../tools/builtins.ts";
import {
  createDenoPermissionQuery,
  createDenoToolHost,
} from "../tools/deno_host.ts";
import { createModePolicy } from "../tools/modes.ts";
import type { ToolDispatchContext } from "../tools/registry.ts";
import { createToolRegistry } from "../tools/registry_impl.ts";

const dir = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "tools-bench-" }));
const file = `${dir}/notes.md`;
Deno.writeTextFileSync(
  file,
  "# Notes\n\n" + "A line of notes text.\n".repeat(48),
);

const host = createDenoToolHost();
const registry = createToolRegistry({
  tools: builtinTools(),
  host,
  context: { workingDir: dir, fsScopeTier: "sandboxed" },
  permissions: createDenoPermissionQuery(),
});
const modes = createModePolicy({
  mode: "ask",
  interactive: false,
  isReadOnly: registry.isReadOnly,
});
const ctx: ToolDispatchContext = {
  signal: new AbortController().signal,
  granted: ["read_file", "list_directory", "git_status"],
  policy: modes.policy,
  interactive: false,
  emitApproval: () => {},
  admit: () => ({ allow: true }),
};
const call = {
  id: "session-tool:1:0",
  name: "read_file",
  args: { path: "notes.md" },
};
const never = new AbortController().signal;

async function dispatch(): Promise<void> {
  const o = await registry.dispatch(call, ctx);
  if (o.kind !== "ok") throw new Error(`read_file failed: ${o.kind}`);
}

async function bareRead(): Promise<void> {
  await Deno.readFile(file);
}

/** The host calls `read_file` cannot avoid: realpath, stat, read. */
async function hostRead(): Promise<void> {
  const real = await host.realPath(file);
  await host.stat(real);
  await host.readFile(real, { maxBytes: 8 * 1024 * 1024, signal: never });
}

Deno.bench(
  "bare Deno.readFile",
  { group: "read_file", baseline: true },
  bareRead,
);
Deno.bench("host realPath + stat + readFile", { group: "read_file" }, hostRead);
Deno.bench("registry.dispatch(read_file)", { group: "read_file" }, dispatch);

if (import.meta.main) {
  const cases = [bareRead, hostRead, dispatch];
  const times: number[][] = cases.map(() => []);
  for (let i = 0; i < 2000; i++) for (const c of cases) await c();
  for (let i = 0; i < 20_000; i++) {
    for (const [k, c] of cases.entries()) {
      const start = performance.now();
      await c();
      times[k]?.push(performance.now() - start);
    }
  }
  const q = (xs: number[], p: number): number => {
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.floor((s.length - 1) * p)] ?? NaN;
  };
  const us = (ms: number): string => `${(ms * 1000).toFixed(1)} µs`;
  const [bare = [], hosted = [], full = []] = times;
  const lines = [
    `bare Deno.readFile:              median ${us(q(bare, 0.5))}, p90 ${
      us(q(bare, 0.9))
    }`,
    `host realPath + stat + readFile: median ${us(q(hosted, 0.5))}, p90 ${
      us(q(hosted, 0.9))
    }`,
    `registry.dispatch(read_file):    median ${us(q(full, 0.5))}, p90 ${
      us(q(full, 0.9))
    }`,
    `overhead beyond the bare read:   ${
      us(q(full, 0.5) - q(bare, 0.5))
    } (median difference)`,
    `overhead beyond the host calls:  ${
      us(q(full, 0.5) - q(hosted, 0.5))
    } (median difference)`,
  ];
  Deno.stdout.writeSync(new TextEncoder().encode(lines.join("\n") + "\n"));
  Deno.removeSync(dir, { recursive: true });
}
