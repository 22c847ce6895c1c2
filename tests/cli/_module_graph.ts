/**
 * The static module graph of an entry point, from `deno info --json`:
 * what it loads before any dynamic import runs.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const ROOT: string = fileURLToPath(new URL("../../", import.meta.url));

interface InfoModule {
  specifier: string;
  dependencies?: Array<{
    code?: { specifier: string };
    isDynamic?: boolean;
  }>;
}

/** The modules `entry` (a path from the root) loads before any dynamic import runs. */
export async function staticClosure(entry: string): Promise<string[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    roots: string[];
    modules: InfoModule[];
    redirects: Record<string, string>;
  };
  const bySpec = new Map(info.modules.map((m) => [m.specifier, m]));
  const seen = new Set<string>();
  const queue = [...info.roots];
  while (queue.length > 0) {
    const raw = queue.pop() ?? "";
    const spec = info.redirects[raw] ?? raw;
    if (seen.has(spec)) continue;
    seen.add(spec);
    for (const d of bySpec.get(spec)?.dependencies ?? []) {
      if (d.code !== undefined && d.isDynamic !== true) {
        queue.push(d.code.specifier);
      }
    }
  }
  return [...seen];
}

/**
 * The npm packages a real `cli.ts` process loads, read off Deno's debug log
 * ("Resolved package folder of <name>@<version>"), which names every package
 * the run resolves, dynamic imports included; and the `node:*` modules it
 * imports (the log's "Specifier "node:…" was not mapped" line for each).
 */
export async function loadedPackages(
  args: string[],
  home: string,
  stdin = "",
): Promise<
  {
    code: number;
    stdout: string;
    packages: string[];
    nodeModules: string[];
    /** The repository's own modules the run loaded, as paths from the root. */
    modules: string[];
  }
> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      "-A",
      "--log-level=debug",
      `${ROOT}cli.ts`,
      ...args,
    ],
    cwd: home,
    env: { RELAVIUM_HOME: home, NO_COLOR: "1" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(stdin));
  await writer.close();
  const out = await child.output();
  const log = new TextDecoder().decode(out.stderr);
  const packages = new Set<string>();
  for (const m of log.matchAll(/Resolved package folder of (@?[^@\s]+)@/g)) {
    packages.add(m[1] ?? "");
  }
  const nodeModules = new Set<string>();
  for (const m of log.matchAll(/Specifier "(node:[^"]+)" was not mapped/g)) {
    nodeModules.add(m[1] ?? "");
  }
  const modules = new Set<string>();
  for (const m of log.matchAll(/for ES module: file:\/\/(\S+?),/g)) {
    const path = m[1] ?? "";
    if (path.startsWith(ROOT)) modules.add(path.slice(ROOT.length));
  }
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    packages: [...packages].sort(),
    nodeModules: [...nodeModules].sort(),
    modules: [...modules].sort(),
  };
}
