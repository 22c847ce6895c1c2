/**
 * Dispatch overhead of a `read_file` call through the whole tool pipeline
 * (exact-name lookup, grant, effective args, strict parse, secret-taint
 * check, lexical jail and floors, guardrails, Deno permission queries,
 * target `realpath` (the root's is pinned at the registry's first call),
 * `stat`, read (open, `fstat` of the handle, capped read), binary probe,
 * bounding, outcome) against the read itself. Target: < 200 µs beyond the
 * read.
 *
 * Four cases: a bare `Deno.readFile`; the host calls the jail cannot
 * avoid (`realPath` + `stat` + capped read); the full dispatch on the
 * Deno host; and the full dispatch on an in-memory host (the pipeline's
 * own cost, every effect answered from memory).
 *
 *   deno bench --allow-read --allow-write bench/tools_bench.ts
 *
 * Run as a script (`deno run --allow-read --allow-write
 * bench/tools_bench.ts`) it interleaves the four cases in one process
 * (2,000 warm-up rounds, then 20,000 timed rounds) and prints the median
 * and p90 of each and the median overheads: steadier than `deno bench`
 * on a shared machine.
 */
import { builtinTools } from "../tools/builtin/all.ts";
import {
  createDenoPermissionQuery,
  createDenoToolEffects,
} from "../tools/deno/effects.ts";
import type { FileStat, ToolEffects } from "../tools/effects.ts";
import { createModePolicy } from "../tools/modes.ts";
import type { ToolDispatchContext } from "../tools/registry.ts";
import { createToolRegistry } from "../tools/registry_impl.ts";

const dir = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "tools-bench-" }));
const file = `${dir}/notes.md`;
Deno.writeTextFileSync(
  file,
  "# Notes\n\n" + "A line of notes text.\n".repeat(48),
);

const host = createDenoToolEffects();
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

const bytes = Deno.readFileSync(file);
const fileStat: FileStat = {
  isFile: true,
  isDirectory: false,
  isSymlink: false,
  size: bytes.length,
  mtimeMs: 0,
  nlink: 1,
};
const memoryHost: ToolEffects = {
  ...host,
  realPath: (p) => Promise.resolve(p),
  lstat: () => Promise.resolve(fileStat),
  stat: () => Promise.resolve(fileStat),
  readFile: () => Promise.resolve(bytes),
};
const memoryRegistry = createToolRegistry({
  tools: builtinTools(),
  host: memoryHost,
  context: { workingDir: dir, fsScopeTier: "sandboxed" },
  permissions: createDenoPermissionQuery(),
});

async function dispatchInMemory(): Promise<void> {
  const o = await memoryRegistry.dispatch(call, ctx);
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
Deno.bench(
  "registry.dispatch(read_file), in-memory host",
  { group: "read_file" },
  dispatchInMemory,
);

if (import.meta.main) {
  const cases = [bareRead, hostRead, dispatch, dispatchInMemory];
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
  const [bare = [], hosted = [], full = [], memory = []] = times;
  const row = (label: string, xs: number[]): string =>
    `${label.padEnd(34)} median ${us(q(xs, 0.5))}, p90 ${us(q(xs, 0.9))}`;
  const diff = (label: string, a: number[], b: number[]): string =>
    `${label.padEnd(34)} ${us(q(a, 0.5) - q(b, 0.5))} (median difference)`;
  const lines = [
    row("bare Deno.readFile:", bare),
    row("host realPath + stat + readFile:", hosted),
    row("registry.dispatch(read_file):", full),
    row("dispatch, in-memory host:", memory),
    diff("overhead beyond the bare read:", full, bare),
    diff("overhead beyond the host calls:", full, hosted),
  ];
  Deno.stdout.writeSync(new TextEncoder().encode(lines.join("\n") + "\n"));
  Deno.removeSync(dir, { recursive: true });
}
