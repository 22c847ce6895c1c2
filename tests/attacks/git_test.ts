/**
 * Attack table: no program a cloned repository names runs by itself.
 * Each row is one vector, driven through the CLI with a cassette: a
 * hostile `.git/config`, `.gitattributes` or hook names a program outside
 * the workspace that would create a marker file; after the `git_status` or
 * `git_commit` call the marker folder is still empty. The `PATH` rows run
 * the CLI as a child with a `PATH` entry inside the workspace; the
 * `write_file` rows check that no executable bit survives a write.
 */
import assert from "node:assert/strict";
import { createBufferedIo } from "../../cli/io/io.ts";
import { main } from "../../cli/main.ts";
import { spawnCli } from "../cli/_child.ts";
import {
  lineStdin,
  parseEvents,
  runCli,
  tempDir,
  textCassette,
  toolCallChunks,
  write,
} from "../cli/_helpers.ts";

/** A strict cassette: one call of `tool`, then a text reply. */
function cassette(tool: string, args: unknown): string {
  const reply = (JSON.parse(textCassette("anthropic", ["Done."])) as {
    calls: unknown[];
  }).calls[0];
  return JSON.stringify({
    schema_version: "1.1",
    provider: "anthropic",
    calls: [
      { chunks: toolCallChunks("c1", tool, args) },
      { expect: { toolResultFor: "c1" }, chunks: reply },
    ],
  });
}

function agentYaml(tool: string): string {
  return `id: helper\nmodel: claude-haiku-4-5\nprovider: anthropic\nsystem_prompt: Help.\ntools:\n  - ${tool}\n`;
}

const CLEAN_PATH = "/usr/bin:/bin";

async function git(cwd: string, args: string[], stdin?: string) {
  const child = new Deno.Command("git", {
    args: [
      "-c",
      "core.hooksPath=/dev/null",
      "-c",
      "core.fsmonitor=false",
      ...args,
    ],
    cwd,
    clearEnv: true,
    env: { PATH: CLEAN_PATH, GIT_CONFIG_NOSYSTEM: "1", HOME: cwd },
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(stdin));
    await w.close();
  }
  const out = await child.output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout).trim();
}

const ARMOR = {
  pgp: ["-----BEGIN PGP SIGNATURE-----", "-----END PGP SIGNATURE-----"],
  ssh: ["-----BEGIN SSH SIGNATURE-----", "-----END SSH SIGNATURE-----"],
  x509: ["-----BEGIN SIGNED MESSAGE-----", "-----END SIGNED MESSAGE-----"],
} as const;

/** A commit whose header carries a signature git will try to verify. */
async function signedCommit(ws: string, kind: keyof typeof ARMOR) {
  const tree = await git(ws, ["rev-parse", "HEAD^{tree}"]);
  const parent = await git(ws, ["rev-parse", "HEAD"]);
  const [begin, end] = ARMOR[kind];
  const body = `tree ${tree}\nparent ${parent}\n` +
    "author T <t@example.com> 1700000000 +0000\n" +
    "committer T <t@example.com> 1700000000 +0000\n" +
    `gpgsig ${begin}\n \n AAAA\n ${end}\n\nsigned\n`;
  const id = await git(
    ws,
    ["hash-object", "-t", "commit", "-w", "--stdin"],
    body,
  );
  await git(ws, ["update-ref", "HEAD", id]);
}

const HOOKS = [
  "pre-commit",
  "prepare-commit-msg",
  "commit-msg",
  "post-commit",
  "reference-transaction",
  "post-index-change",
  "pre-auto-gc",
];

interface Rig {
  /** The workspace (a git repository). */
  ws: string;
  /** The path of a hostile program that creates marker `name`. */
  prog(name: string): string;
}

interface Row {
  name: string;
  tool: "git_status" | "git_commit";
  args: Record<string, unknown>;
  /** Appended to `.git/config`. */
  config?: (r: Rig) => string;
  attributes?: string;
  /** Extra preparation before the hostile files are written. */
  prepare?: (r: Rig) => Promise<void>;
  /** Hostile text appended after preparation (absolute path ⇒ text). */
  files?: (r: Rig) => Record<string, string>;
  /** The call is refused with this message instead of running. */
  refused?: RegExp;
  /** Hooks installed into this folder (relative to the temp dir). */
  hooksIn?: (r: Rig) => string;
}

const ROWS: Row[] = [
  {
    name: "filter.<d>.clean named by .gitattributes (status)",
    tool: "git_status",
    args: {},
    attributes: "a.txt filter=evil\n",
    config: (r) =>
      `[filter "evil"]\n\tclean = ${r.prog("clean")}\n\tsmudge = ${
        r.prog("smudge")
      }\n\trequired = true\n`,
  },
  {
    name: "filter.<d>.process (status)",
    tool: "git_status",
    args: {},
    attributes: "a.txt filter=evil\n",
    config: (r) => `[filter "evil"]\n\tprocess = ${r.prog("process")}\n`,
  },
  {
    name: "filter.<d>.clean (diff)",
    tool: "git_status",
    args: { command: "diff" },
    attributes: "a.txt filter=evil\n",
    config: (r) => `[filter "evil"]\n\tclean = ${r.prog("clean")}\n`,
  },
  {
    name: "a filter pulled in by include.path (status)",
    tool: "git_status",
    args: {},
    attributes: "a.txt filter=inc\n",
    files: (r) => ({
      [`${r.ws}/../included.config`]: `[filter "inc"]\n\tclean = ${
        r.prog("include")
      }\n`,
    }),
    config: (r) => `[include]\n\tpath = ${r.ws}/../included.config\n`,
  },
  {
    name: "a filter pulled in by includeIf gitdir (status)",
    tool: "git_status",
    args: {},
    attributes: "a.txt filter=Cond.Name\n",
    files: (r) => ({
      [`${r.ws}/../cond.config`]: `[filter "Cond.Name"]\n\tclean = ${
        r.prog("includeif")
      }\n`,
    }),
    config: (r) =>
      `[includeIf "gitdir:${r.ws}/"]\n\tpath = ${r.ws}/../cond.config\n`,
  },
  {
    name: "a filter in a submodule's own config (status)",
    tool: "git_status",
    args: {},
    prepare: async (r) => {
      const src = `${r.ws}/../subsrc`;
      await Deno.mkdir(src);
      await git(src, ["init", "-q"]);
      await Deno.writeTextFile(`${src}/.gitattributes`, "b.txt filter=sub\n");
      await Deno.writeTextFile(`${src}/b.txt`, "one\n");
      await git(src, ["add", "."]);
      await git(src, [
        "-c",
        "user.name=T",
        "-c",
        "user.email=t@example.com",
        "commit",
        "-q",
        "-m",
        "s",
      ]);
      await git(r.ws, [
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "-q",
        src,
        "sub",
      ]);
      await git(r.ws, ["commit", "-q", "-m", "sub"]);
      await Deno.writeTextFile(`${r.ws}/sub/b.txt`, "two\n");
    },
    files: (r) => ({
      [`${r.ws}/.git/modules/sub/config`]: `[filter "sub"]\n\tclean = ${
        r.prog("submodule")
      }\n`,
    }),
  },
  {
    name: "a driver name git cannot override in -c: refused",
    tool: "git_status",
    args: {},
    attributes: "a.txt filter=a=b\n",
    config: (r) => `[filter "a=b"]\n\tclean = ${r.prog("unoverridable")}\n`,
    refused:
      /Refusing to run git: the config names a filter driver git cannot switch off/,
  },
  {
    name: "diff.<d>.textconv (diff)",
    tool: "git_status",
    args: { command: "diff" },
    attributes: "a.txt diff=evil\n",
    config: (r) => `[diff "evil"]\n\ttextconv = ${r.prog("textconv")}\n`,
  },
  {
    name: "diff.<d>.command (diff)",
    tool: "git_status",
    args: { command: "diff" },
    attributes: "a.txt diff=evil\n",
    config: (r) => `[diff "evil"]\n\tcommand = ${r.prog("diffcommand")}\n`,
  },
  {
    name: "diff.external (diff)",
    tool: "git_status",
    args: { command: "diff" },
    config: (r) => `[diff]\n\texternal = ${r.prog("external")}\n`,
  },
  {
    name: "core.pager and pager.log (log)",
    tool: "git_status",
    args: { command: "log" },
    config: (r) =>
      `[core]\n\tpager = ${r.prog("pager")}\n[pager]\n\tlog = ${
        r.prog("pagerlog")
      }\n`,
  },
  {
    name: "core.fsmonitor (status)",
    tool: "git_status",
    args: {},
    config: (r) => `[core]\n\tfsmonitor = ${r.prog("fsmonitor")}\n`,
  },
  {
    name: "gpg.program with log.showSignature (log)",
    tool: "git_status",
    args: { command: "log" },
    prepare: (r) => signedCommit(r.ws, "pgp"),
    config: (r) =>
      `[log]\n\tshowSignature = true\n[gpg]\n\tprogram = ${r.prog("gpg")}\n`,
  },
  {
    name: "gpg.openpgp.program through format.pretty %G? (log)",
    tool: "git_status",
    args: { command: "log" },
    prepare: (r) => signedCommit(r.ws, "pgp"),
    config: (r) =>
      `[format]\n\tpretty = %G? %s\n[gpg "openpgp"]\n\tprogram = ${
        r.prog("openpgp")
      }\n`,
  },
  {
    name: "gpg.ssh.program (log)",
    tool: "git_status",
    args: { command: "log" },
    prepare: (r) => signedCommit(r.ws, "ssh"),
    config: (r) =>
      `[log]\n\tshowSignature = true\n[gpg "ssh"]\n\tprogram = ${
        r.prog("gpgssh")
      }\n\tallowedSignersFile = ${r.ws}/../signers\n`,
  },
  {
    name: "gpg.x509.program (log)",
    tool: "git_status",
    args: { command: "log" },
    prepare: (r) => signedCommit(r.ws, "x509"),
    config: (r) =>
      `[log]\n\tshowSignature = true\n[gpg "x509"]\n\tprogram = ${
        r.prog("x509")
      }\n`,
  },
  {
    name: "an alias named like the subcommand (status)",
    tool: "git_status",
    args: {},
    config: (r) => `[alias]\n\tstatus = !${r.prog("alias")}\n`,
  },
  {
    name: "core.sshCommand and credential.helper (status)",
    tool: "git_status",
    args: {},
    config: (r) =>
      `[core]\n\tsshCommand = ${r.prog("ssh")}\n[credential]\n\thelper = !${
        r.prog("credential")
      }\n`,
  },
  {
    name: "core.hooksPath hooks (commit)",
    tool: "git_commit",
    args: { message: "change", files: ["a.txt"] },
    hooksIn: (r) => `${r.ws}/../hooks`,
    config: (r) => `[core]\n\thooksPath = ${r.ws}/../hooks\n`,
  },
  {
    name: ".git/hooks/* (commit)",
    tool: "git_commit",
    args: { message: "change", files: ["a.txt"] },
    hooksIn: (r) => `${r.ws}/.git/hooks`,
  },
  {
    name: "commit.gpgSign with gpg.program (commit)",
    tool: "git_commit",
    args: { message: "change", files: ["a.txt"] },
    config: (r) =>
      `[commit]\n\tgpgSign = true\n[gpg]\n\tprogram = ${r.prog("sign")}\n`,
  },
  {
    name: "filter.<d>.clean on the committed file (commit)",
    tool: "git_commit",
    args: { message: "change", files: ["a.txt"] },
    attributes: "a.txt filter=evil\n",
    config: (r) => `[filter "evil"]\n\tclean = ${r.prog("commitclean")}\n`,
  },
  {
    name: "core.fsmonitor and gc.auto (commit)",
    tool: "git_commit",
    args: { message: "change", files: ["a.txt"] },
    config: (r) =>
      `[core]\n\tfsmonitor = ${r.prog("commitfsmonitor")}\n[gc]\n\tauto = 1\n`,
  },
];

async function entries(path: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(path)) out.push(e.name);
  return out.sort();
}

function assertClean(text: string): void {
  assert.doesNotMatch(text, /Internal error/);
  assert.doesNotMatch(text, /^\s+at .*:\d+:\d+\)?$/m, "no stack trace");
}

async function hostileRepo(root: string, row: Row): Promise<Rig> {
  const ws = `${root}/ws`;
  const marks = `${root}/marks`;
  await Deno.mkdir(ws);
  await Deno.mkdir(marks);
  await Deno.mkdir(`${root}/evil`);
  const rig: Rig = { ws, prog: (name) => `${root}/evil/${name}` };
  await git(ws, ["init", "-q"]);
  await git(ws, ["config", "user.name", "T"]);
  await git(ws, ["config", "user.email", "t@example.com"]);
  await Deno.writeTextFile(`${ws}/a.txt`, "one\n");
  await git(ws, ["add", "a.txt"]);
  await git(ws, ["commit", "-q", "-m", "initial"]);
  await row.prepare?.(rig);
  const programs = new Set<string>(HOOKS.map((h) => `hook-${h}`));
  const config = row.config?.(rig) ?? "";
  const named = [config, ...Object.values(row.files?.(rig) ?? {})].join("\n");
  for (const [, name = ""] of named.matchAll(/\/evil\/([a-z0-9-]+)/g)) {
    programs.add(name);
  }
  for (const name of programs) {
    await Deno.writeTextFile(
      rig.prog(name),
      `#!/bin/sh\n: > '${marks}/${name}'\ncat\n`,
      { mode: 0o755 },
    );
  }
  const hooks = row.hooksIn?.(rig);
  if (hooks !== undefined) {
    await Deno.mkdir(hooks, { recursive: true });
    for (const h of HOOKS) {
      await Deno.writeTextFile(
        `${hooks}/${h}`,
        `#!/bin/sh\n: > '${marks}/hook-${h}'\n`,
        { mode: 0o755 },
      );
    }
  }
  for (const [path, text] of Object.entries(row.files?.(rig) ?? {})) {
    await Deno.writeTextFile(path, text, { append: true });
  }
  if (row.attributes !== undefined) {
    await Deno.writeTextFile(`${ws}/.gitattributes`, row.attributes);
  }
  if (config !== "") {
    await Deno.writeTextFile(`${ws}/.git/config`, config, { append: true });
  }
  // same size, new content: git must read the file (and would filter it)
  await Deno.writeTextFile(`${ws}/a.txt`, "two\n");
  await write(`${root}/helper.agent.yaml`, agentYaml(row.tool));
  await write(`${root}/c.json`, cassette(row.tool, row.args));
  return rig;
}

async function runRow(root: string, row: Row): Promise<string> {
  const argv = [
    "chat",
    "--agent",
    `${root}/helper.agent.yaml`,
    "--fixture",
    `${root}/c.json`,
  ];
  const env = { RELAVIUM_HOME: `${root}/home`, NO_COLOR: "1" };
  if (row.tool === "git_status") {
    const r = await runCli([...argv, "--json"], {
      env,
      cwd: `${root}/ws`,
      stdin: "what changed?\n",
    });
    assertClean(r.stderr);
    assertClean(r.stdout);
    const result = parseEvents(r.stdout).find((e) =>
      e.type === "agent:tool_result"
    );
    assert.ok(result?.type === "agent:tool_result", r.stdout);
    if (row.refused === undefined) {
      assert.ok(result.success, JSON.stringify(result));
    } else {
      assert.ok(!result.success);
      assert.match(r.stdout, row.refused);
    }
    return r.stdout;
  }
  const b = createBufferedIo({
    env,
    cwd: `${root}/ws`,
    stdin: lineStdin(["commit it", "y"]),
    stdinIsTerminal: true,
    stdoutIsTerminal: true,
  });
  await main([...argv, "--mode", "auto"], b.io);
  assertClean(b.stderrText());
  assertClean(b.stdoutText());
  assert.match(b.stderrText(), /Commit "change" \(a\.txt\)\?/);
  assert.equal(
    await git(`${root}/ws`, ["log", "-1", "--format=%s"]),
    "change",
    "the commit itself still happens",
  );
  return b.stderrText();
}

for (const row of ROWS) {
  Deno.test(`attack: git ${row.name} runs nothing`, async () => {
    await using dir = await tempDir();
    await hostileRepo(dir.path, row);
    const output = await runRow(dir.path, row);
    assert.deepEqual(
      await entries(`${dir.path}/marks`),
      [],
      `a repository program ran:\n${output}`,
    );
  });
}

// ---------------------------------------------------------------- PATH

interface PathRow {
  name: string;
  tool: "run_command" | "git_status";
  args: Record<string, unknown>;
  /** PATH of the CLI, from the rig's folders. */
  path: (ws: string, root: string) => string;
  /** Creates the hostile program(s); returns nothing. */
  plant: (ws: string, root: string, marks: string) => Promise<void>;
  /** What the tool result event says (the outside program exits 3). */
  expect: RegExp;
}

function hostile(marks: string, name: string): string {
  return `#!/bin/sh\n: > '${marks}/${name}'\necho hostile\n`;
}

const PATH_ROWS: PathRow[] = [
  {
    name: "a workspace .venv/bin/pytest does not answer to pytest",
    tool: "run_command",
    args: { command: "pytest" },
    path: (ws, root) => `${ws}/.venv/bin:${root}/sysbin`,
    plant: async (ws, root, marks) => {
      await write(`${ws}/.venv/bin/pytest`, hostile(marks, "pytest"));
      await Deno.chmod(`${ws}/.venv/bin/pytest`, 0o755);
      await write(`${root}/sysbin/pytest`, "#!/bin/sh\nexit 3\n");
      await Deno.chmod(`${root}/sysbin/pytest`, 0o755);
    },
    expect: /pytest exited 3/,
  },
  {
    name: "only a workspace entry has the program: refused, naming it",
    tool: "run_command",
    args: { command: "pytest" },
    path: (ws) => `${ws}/.venv/bin`,
    plant: async (ws, _root, marks) => {
      await write(`${ws}/.venv/bin/pytest`, hostile(marks, "pytest"));
      await Deno.chmod(`${ws}/.venv/bin/pytest`, 0o755);
    },
    expect:
      /program not found on the host PATH \(PATH entries inside the workspace or a filesystem root are skipped: .*\.venv\/bin\)/,
  },
  {
    name: "an entry outside that links into the workspace is skipped too",
    tool: "run_command",
    args: { command: "pytest" },
    path: (_ws, root) => `${root}/linked:${root}/sysbin`,
    plant: async (ws, root, marks) => {
      await write(`${ws}/node_modules/.bin/pytest`, hostile(marks, "pytest"));
      await Deno.chmod(`${ws}/node_modules/.bin/pytest`, 0o755);
      await Deno.symlink(`${ws}/node_modules/.bin`, `${root}/linked`);
      await write(`${root}/sysbin/pytest`, "#!/bin/sh\nexit 3\n");
      await Deno.chmod(`${root}/sysbin/pytest`, 0o755);
    },
    expect: /pytest exited 3/,
  },
  {
    name: "a workspace node_modules/.bin/git does not answer to git_status",
    tool: "git_status",
    args: {},
    path: (ws) => `${ws}/node_modules/.bin:${CLEAN_PATH}`,
    plant: async (ws, _root, marks) => {
      await write(`${ws}/node_modules/.bin/git`, hostile(marks, "git"));
      await Deno.chmod(`${ws}/node_modules/.bin/git`, 0o755);
    },
    expect: /git status exited 128/,
  },
];

/** The module cache of this Deno (the child gets its own HOME). */
async function denoDir(): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdout: "piped",
    stderr: "null",
  }).output();
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    denoDir: string;
  };
  return info.denoDir;
}

for (const row of PATH_ROWS) {
  Deno.test(`attack: PATH ${row.name}`, async () => {
    await using dir = await tempDir();
    const root = dir.path;
    const ws = `${root}/ws`;
    const marks = `${root}/marks`;
    await Deno.mkdir(ws);
    await Deno.mkdir(marks);
    await row.plant(ws, root, marks);
    await write(
      `${root}/home/config.toml`,
      '[chat]\nallowed_commands = ["pytest"]\n',
    );
    await write(`${root}/helper.agent.yaml`, agentYaml(row.tool));
    await write(`${root}/c.json`, cassette(row.tool, row.args));
    await using cli = spawnCli([
      "chat",
      "--agent",
      `${root}/helper.agent.yaml`,
      "--fixture",
      `${root}/c.json`,
      "--json",
      "--mode",
      "auto",
    ], {
      cwd: ws,
      env: {
        PATH: row.path(ws, root),
        HOME: root,
        DENO_DIR: await denoDir(),
        RELAVIUM_HOME: `${root}/home`,
      },
    });
    await cli.send("run it");
    const end = await cli.finished();
    assertClean(end.stderr);
    const output = cli.lines.join("\n");
    assertClean(output);
    const result = cli.lines.map((l) =>
      JSON.parse(l) as Record<string, unknown>
    )
      .find((e) => e["type"] === "agent:tool_result");
    assert.ok(result !== undefined, `${output}\n${end.stderr}`);
    assert.match(JSON.stringify(result), row.expect);
    assert.deepEqual(await entries(marks), [], "the workspace program ran");
  });
}

// ---------------------------------------------------------- write_file

interface WriteRow {
  name: string;
  args: { path: string; content: string; append?: boolean };
  /** Mode of the file before the write (absent: a new file). */
  before?: { mode: number; text: string };
  after: string;
}

const WRITE_ROWS: WriteRow[] = [
  {
    name: "overwriting an executable .venv/bin/pytest drops its x bits",
    args: { path: ".venv/bin/pytest", content: "#!/bin/sh\necho model\n" },
    before: { mode: 0o755, text: "#!/bin/sh\necho real\n" },
    after: "#!/bin/sh\necho model\n",
  },
  {
    name: "overwriting a set-uid executable drops every special bit",
    args: { path: "tool", content: "x\n" },
    before: { mode: 0o4775, text: "y\n" },
    after: "x\n",
  },
  {
    name: "appending to an executable leaves it non-executable",
    args: { path: "run.sh", content: "echo more\n", append: true },
    before: { mode: 0o700, text: "#!/bin/sh\n" },
    after: "#!/bin/sh\necho more\n",
  },
  {
    name: "a new file is never executable",
    args: { path: "new.sh", content: "#!/bin/sh\n" },
    after: "#!/bin/sh\n",
  },
];

for (const row of WRITE_ROWS) {
  Deno.test(`attack: write_file ${row.name}`, async () => {
    await using dir = await tempDir();
    const ws = `${dir.path}/ws`;
    const target = `${ws}/${row.args.path}`;
    await Deno.mkdir(ws);
    if (row.before !== undefined) {
      await write(target, row.before.text);
      await Deno.chmod(target, row.before.mode);
    }
    await write(`${dir.path}/helper.agent.yaml`, agentYaml("write_file"));
    await write(`${dir.path}/c.json`, cassette("write_file", row.args));
    const r = await runCli([
      "chat",
      "--agent",
      `${dir.path}/helper.agent.yaml`,
      "--fixture",
      `${dir.path}/c.json`,
      "--json",
      "--mode",
      "auto",
    ], {
      env: { RELAVIUM_HOME: `${dir.path}/home` },
      cwd: ws,
      stdin: "write it\n",
    });
    assertClean(r.stderr);
    assertClean(r.stdout);
    const result = parseEvents(r.stdout).find((e) =>
      e.type === "agent:tool_result"
    );
    assert.ok(result?.type === "agent:tool_result" && result.success, r.stdout);
    assert.equal(await Deno.readTextFile(target), row.after);
    const mode = (await Deno.stat(target)).mode ?? 0;
    assert.equal(mode & 0o7111, 0, `mode ${mode.toString(8)}`);
  });
}
