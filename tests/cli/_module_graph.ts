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
