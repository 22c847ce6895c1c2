/**
 * Fails when the module graph of the package has an import cycle, type
 * imports and dynamic imports included.
 *
 * The graph comes from `deno info --json`, started at every entry point of
 * `deno.json` and at every source file no entry point reaches, so a file
 * that nothing imports yet is checked too. Tests, benches and tooling are
 * left out: they sit on top of the package and nothing imports them.
 *
 * It also fails when a folder imports one it must never know: the engine
 * (`session/`) hands values over and never imports `store/`, `host/`,
 * `serve/` or `cli/`.
 *
 * Run: `deno run --allow-read --allow-run _tools/check_cycles.ts`
 *
 * @module
 */

const ROOT = new URL("../", import.meta.url);
const SKIP_DIRS = new Set([
  ".git",
  "tests",
  "bench",
  "_tools",
  "dist",
  "demo",
  "examples",
  "node_modules",
]);

interface InfoDependency {
  code?: { specifier?: string };
  type?: { specifier?: string };
}
interface InfoModule {
  specifier: string;
  dependencies?: InfoDependency[];
}

async function sourceFiles(dir: URL, rel = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isDirectory) {
      if (rel === "" && SKIP_DIRS.has(entry.name)) continue;
      out.push(
        ...await sourceFiles(
          new URL(`${entry.name}/`, dir),
          `${rel}${entry.name}/`,
        ),
      );
    } else if (entry.isFile && entry.name.endsWith(".ts")) {
      out.push(new URL(entry.name, dir).href);
    }
  }
  return out;
}

async function graphFrom(
  root: string,
  edges: Map<string, Set<string>>,
): Promise<void> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", root],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(
      `deno info failed for ${root}: ${new TextDecoder().decode(out.stderr)}`,
    );
  }
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    modules: InfoModule[];
  };
  for (const mod of info.modules) {
    if (!mod.specifier.startsWith(ROOT.href)) continue;
    const targets = edges.get(mod.specifier) ?? new Set<string>();
    for (const dep of mod.dependencies ?? []) {
      for (const to of [dep.code?.specifier, dep.type?.specifier]) {
        if (to !== undefined && to.startsWith(ROOT.href)) targets.add(to);
      }
    }
    edges.set(mod.specifier, targets);
  }
}

/** Strongly connected components with more than one member, or a self-loop. */
function cycles(edges: Map<string, Set<string>>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  function visit(v: string): void {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) ?? 0, idx.get(w) ?? 0));
      }
    }
    if (low.get(v) === idx.get(v)) {
      const component: string[] = [];
      let w: string | undefined;
      do {
        w = stack.pop();
        if (w === undefined) break;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || edges.get(v)?.has(v)) found.push(component);
    }
  }
  for (const v of edges.keys()) if (!idx.has(v)) visit(v);
  return found;
}

/** Folders a folder must never import, type imports included. */
const FORBIDDEN: Record<string, readonly string[]> = {
  "session/": ["store/", "host/", "serve/", "cli/"],
};

/** Every edge from a folder into one it must never import. */
function forbiddenEdges(
  edges: Map<string, Set<string>>,
  rel: (s: string) => string,
): string[] {
  const found: string[] = [];
  for (const [from, targets] of edges) {
    const source = rel(from);
    for (const [folder, banned] of Object.entries(FORBIDDEN)) {
      if (!source.startsWith(folder)) continue;
      for (const to of targets) {
        const target = rel(to);
        if (banned.some((b) => target.startsWith(b))) {
          found.push(
            `${source} imports ${target} (${folder} never imports ${
              banned.join(", ")
            })`,
          );
        }
      }
    }
  }
  return found.sort();
}

async function main(): Promise<number> {
  const config = JSON.parse(
    await Deno.readTextFile(new URL("deno.json", ROOT)),
  ) as { exports: Record<string, string> };
  const edges = new Map<string, Set<string>>();
  for (const entry of Object.values(config.exports)) {
    await graphFrom(new URL(entry, ROOT).href, edges);
  }
  for (const file of await sourceFiles(ROOT)) {
    if (!edges.has(file)) await graphFrom(file, edges);
  }
  const found = cycles(edges);
  const rel = (s: string) => s.slice(ROOT.href.length);
  const banned = forbiddenEdges(edges, rel);
  for (const edge of banned) {
    // deno-lint-ignore no-console
    console.error(
      `forbidden import: ${edge}`,
    );
  }
  for (const component of found) {
    // deno-lint-ignore no-console
    console.error(
      `import cycle (${component.length} modules): ${
        component.map(rel).sort().join(", ")
      }`,
    );
  }
  if (found.length > 0 || banned.length > 0) return 1;
  // deno-lint-ignore no-console
  console.log(
    `no import cycle and no forbidden import in ${edges.size} modules`,
  );
  return 0;
}

Deno.exit(await main());
