/**
 * Counts the symbols each entry point exports and the distinct names across
 * all of them, and fails when the root face or the whole face is over its
 * limit: at most 60 symbols from `mod.ts`, at most 180 distinct names in
 * all entry points together. `--list` prints every entry point's names.
 *
 * @module
 */

const ENTRY_POINTS: readonly string[] = [
  "mod.ts",
  "schema/mod.ts",
  "session/mod.ts",
  "llm/mod.ts",
  "store/mod.ts",
  "store/postgres/mod.ts",
  "host/mod.ts",
  "export/mod.ts",
  "tools/mod.ts",
];
const ROOT_LIMIT = 60;
const TOTAL_LIMIT = 180;

interface DocJson {
  nodes: Record<string, { symbols?: { name: string }[] }>;
}

/** The names `deno doc --json` lists for one entry point. */
async function exportedNames(entry: string): Promise<string[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["doc", "--json", entry],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (!out.success) throw new Error(`Cannot document entry point: ${entry}`);
  const doc = JSON.parse(new TextDecoder().decode(out.stdout)) as DocJson;
  const names = new Set<string>();
  for (const node of Object.values(doc.nodes)) {
    for (const symbol of node.symbols ?? []) names.add(symbol.name);
  }
  return [...names].sort();
}

/** Writes one line of the report to stdout, or to stderr for a problem. */
function say(line: string, problem = false): void {
  const bytes = new TextEncoder().encode(`${line}\n`);
  (problem ? Deno.stderr : Deno.stdout).writeSync(bytes);
}

/** Prints the counts; returns the exit code. */
async function main(args: readonly string[]): Promise<number> {
  const all = new Set<string>();
  let root = 0;
  for (const entry of ENTRY_POINTS) {
    const names = await exportedNames(entry);
    if (entry === "mod.ts") root = names.length;
    for (const name of names) all.add(name);
    const listed = args.includes("--list") ? `: ${names.join(" ")}` : "";
    say(`${entry} ${names.length}${listed}`);
  }
  say(`distinct names ${all.size}`);
  const problems: string[] = [];
  if (root > ROOT_LIMIT) {
    problems.push(`mod.ts exports ${root} > ${ROOT_LIMIT}`);
  }
  if (all.size > TOTAL_LIMIT) {
    problems.push(`all entry points name ${all.size} > ${TOTAL_LIMIT}`);
  }
  for (const problem of problems) {
    say(`Export limit exceeded: ${problem}`, true);
  }
  return problems.length === 0 ? 0 : 1;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
