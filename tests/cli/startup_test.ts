import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

interface InfoModule {
  specifier: string;
  dependencies?: Array<{
    code?: { specifier: string };
    isDynamic?: boolean;
  }>;
}

/** The modules `cli.ts` loads before any dynamic import runs. */
async function staticClosure(entry: string): Promise<string[]> {
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

Deno.test("cli.ts statically loads no zod, YAML, TOML or SQLite (DECISIONS.md 22, 36)", async () => {
  const modules = await staticClosure("cli.ts");
  const heavy = modules.filter((m) => /zod|yaml|smol-toml|node:sqlite/.test(m));
  assert.deepEqual(heavy, []);
  assert.ok(!modules.some((m) => m.endsWith("/cli/commands/chat.ts")));
});

Deno.test("a lone --version or --help loads no argument parser and no node: module", async () => {
  const modules = await staticClosure("cli.ts");
  assert.deepEqual(modules.filter((m) => m.startsWith("node:")), []);
  assert.ok(!modules.some((m) => m.endsWith("/cli/args.ts")));
  assert.ok(!modules.some((m) => m.endsWith("/cli/command_env.ts")));
});

Deno.test("agent run loads tools, TOML and cassette modules only when needed", async () => {
  const modules = await staticClosure("cli/commands/agent_run.ts");
  const tools = modules.filter((m) => m.includes("/tools/"));
  // modes.ts, and the pure SSRF primitive the config's provider base-URL
  // check uses (tools.md §7; three small modules, no zod).
  assert.deepEqual(
    tools.map((m) => m.slice(m.indexOf("/tools/"))).sort(),
    [
      "/tools/modes.ts",
      "/tools/sandbox/_ip.ts",
      "/tools/sandbox/ssrf.ts",
      "/tools/sandbox/ssrf_address.ts",
    ],
  );
  assert.ok(!modules.some((m) => m.endsWith("/cli/run/tool_wiring.ts")));
  // The TOML parser loads only when a config file exists.
  assert.ok(!modules.some((m) => m.includes("smol-toml")));
  // The cassette parser loads only for --fixture.
  assert.ok(!modules.some((m) => m.endsWith("/cli/run/fixture.ts")));
});

Deno.test("cli.ts runs --version in a real process", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", "cli.ts", "--version"],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0);
  assert.equal(new TextDecoder().decode(out.stdout), "0.1.0\n");
});
