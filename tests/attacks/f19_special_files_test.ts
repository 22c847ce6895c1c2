/**
 * Attack table F19: a cloned repository commits a config or agent file as
 * a symlink to `/dev/zero` or `/dev/urandom`, as a FIFO, or as a huge
 * file. Every command that reads it must end with a clear error naming the
 * path and the rule (exit 2, `doctor` 1), never wait or fill memory. Each
 * row runs `cli.ts` as a child under a data-size limit (when `prlimit`
 * exists) and a time bound; a child still running at the bound is killed
 * and the row fails.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { cliRunArgs } from "../cli/_child.ts";
import { tempDir, write } from "../cli/_helpers.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** A bound on each child, not a speed claim: the old code never ended. */
const BOUND_MS = 60_000;
const PRLIMIT = "/usr/bin/prlimit";
const AGENT =
  "id: helper\nmodel: claude-haiku-4-5\nprovider: anthropic\nsystem_prompt: Help.\n";

interface Ended {
  code: number;
  stdout: string;
  stderr: string;
  killed: boolean;
}

async function hasPrlimit(): Promise<boolean> {
  return await Deno.stat(PRLIMIT).then((s) => s.isFile, () => false);
}

/** Runs `deno <args>` from `cwd`, killed at the bound; 2 GB of data at most. */
async function runBounded(
  args: string[],
  options: { cwd: string; env: Record<string, string> },
): Promise<Ended> {
  const limited = await hasPrlimit();
  const child = new Deno.Command(limited ? PRLIMIT : Deno.execPath(), {
    args: limited
      ? ["--data=2000000000", "--", Deno.execPath(), ...args]
      : args,
    cwd: options.cwd,
    clearEnv: true,
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", ...options.env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    try {
      child.kill("SIGKILL");
    } catch {
      // Already ended.
    }
  }, BOUND_MS);
  try {
    const out = await child.output();
    const text = (b: Uint8Array) => new TextDecoder().decode(b);
    return {
      code: out.code,
      stdout: text(out.stdout),
      stderr: text(out.stderr),
      killed,
    };
  } finally {
    clearTimeout(timer);
  }
}

interface Repo {
  root: string;
  home: string;
  env: Record<string, string>;
}

type Plant = "dev_zero" | "dev_urandom" | "fifo" | "huge";

async function plant(path: string, what: Plant): Promise<void> {
  await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  switch (what) {
    case "dev_zero":
      return await Deno.symlink("/dev/zero", path);
    case "dev_urandom":
      return await Deno.symlink("/dev/urandom", path);
    case "fifo": {
      const made = await new Deno.Command("mkfifo", { args: [path] }).output();
      assert.equal(made.code, 0, "mkfifo");
      return;
    }
    case "huge":
      return await Deno.writeTextFile(
        path,
        `# ${"x".repeat(1024 * 1024)}\n[chat]\nmax_turns = 3\n`,
      );
  }
}

interface Row {
  name: string;
  /** The planted file, relative to the repository (`~/` for the home). */
  file: string;
  what: Plant;
  argv: string[];
  code: number;
  /** What the message says of the file. */
  says: RegExp;
}

const FILE_RULE = /regular files of at most 1 MiB/;

const ROWS: Row[] = [
  {
    name: "project.toml -> /dev/zero: config show",
    file: ".relavium/project.toml",
    what: "dev_zero",
    argv: ["config", "show"],
    code: 2,
    says: /is a character device, not a regular file/,
  },
  {
    name: "project.toml as a FIFO: doctor",
    file: ".relavium/project.toml",
    what: "fifo",
    argv: ["doctor"],
    code: 1,
    says: /is a FIFO, not a regular file/,
  },
  {
    name: "project.toml -> /dev/urandom: trust",
    file: ".relavium/project.toml",
    what: "dev_urandom",
    argv: ["trust"],
    code: 2,
    says: /is a character device, not a regular file/,
  },
  {
    name: "workspace.toml as a FIFO: chat",
    file: ".relavium/workspace.toml",
    what: "fifo",
    argv: ["chat", "--agent", "helper.agent.yaml"],
    code: 2,
    says: /is a FIFO, not a regular file/,
  },
  {
    name: "the global config.toml -> /dev/zero: config show",
    file: "~/config.toml",
    what: "dev_zero",
    argv: ["config", "show"],
    code: 2,
    says: /is a character device, not a regular file/,
  },
  {
    name: "project.toml over 1 MiB: config show",
    file: ".relavium/project.toml",
    what: "huge",
    argv: ["config", "show"],
    code: 2,
    says: /is larger than 1 MiB/,
  },
  {
    name: ".relavium/agents/helper.agent.yaml -> /dev/zero: agent run",
    file: ".relavium/agents/helper.agent.yaml",
    what: "dev_zero",
    argv: ["agent", "run", "helper", "hi"],
    code: 2,
    says: /is a character device, not a regular file/,
  },
  {
    name: ".relavium/agents/helper.agent.yaml as a FIFO: chat --agent",
    file: ".relavium/agents/helper.agent.yaml",
    what: "fifo",
    argv: ["chat", "--agent", "helper"],
    code: 2,
    says: /is a FIFO, not a regular file/,
  },
  {
    name: "an agent file as a FIFO: doctor --permissions --agent",
    file: "helper.agent.yaml",
    what: "fifo",
    argv: ["doctor", "--permissions", "--agent", "helper.agent.yaml"],
    code: 1,
    says: /is a FIFO, not a regular file/,
  },
];

async function setUp(root: string): Promise<Repo> {
  const repo = {
    root: `${root}/repo`,
    home: `${root}/home`,
    env: { RELAVIUM_HOME: `${root}/home`, NO_COLOR: "1" },
  };
  await Deno.mkdir(`${repo.root}/.relavium`, { recursive: true });
  await Deno.mkdir(repo.home, { recursive: true });
  return repo;
}

Deno.test("F19: special and huge config or agent files end with a named error", async (t) => {
  for (const row of ROWS) {
    await t.step(row.name, async () => {
      await using dir = await tempDir();
      const repo = await setUp(dir.path);
      const path = row.file.startsWith("~/")
        ? `${repo.home}/${row.file.slice(2)}`
        : `${repo.root}/${row.file}`;
      if (row.file !== "helper.agent.yaml") {
        await write(`${repo.root}/helper.agent.yaml`, AGENT);
      }
      await plant(path, row.what);
      const r = await runBounded(
        [
          "run",
          "--config",
          `${ROOT}deno.json`,
          ...cliRunArgs(row.argv).slice(1),
        ],
        { cwd: repo.root, env: repo.env },
      );
      assert.equal(
        r.killed,
        false,
        `${row.name}: did not end within the bound`,
      );
      assert.equal(r.code, row.code, r.stderr);
      assert.ok(r.stderr.includes(path), r.stderr);
      assert.match(r.stderr, row.says);
      assert.match(r.stderr, FILE_RULE);
      assert.doesNotMatch(r.stderr + r.stdout, /Internal error|out of memory/);
    });
  }
});

Deno.test("F19: loadAgentFile() refuses a FIFO and /dev/zero by name", async (t) => {
  for (const what of ["fifo", "dev_zero"] as const) {
    await t.step(what, async () => {
      await using dir = await tempDir();
      const path = `${dir.path}/a.agent.yaml`;
      await plant(path, what);
      const script = `import { loadAgentFile } from ${
        JSON.stringify(`${ROOT}host/mod.ts`)
      };
try { await loadAgentFile(${JSON.stringify(path)}); console.log("loaded"); }
catch (e) { console.log(e.name + ": " + e.message); }`;
      const r = await runBounded(
        ["eval", "--config", `${ROOT}deno.json`, script],
        { cwd: dir.path, env: {} },
      );
      assert.equal(r.killed, false, "did not end within the bound");
      assert.match(r.stdout, /^InvalidFileError: /);
      assert.ok(r.stdout.includes(path), r.stdout);
      assert.match(r.stdout, FILE_RULE);
    });
  }
});
