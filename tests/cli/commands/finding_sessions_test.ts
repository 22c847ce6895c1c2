/**
 * Finding sessions again: unique id prefixes in every command that takes
 * an id, `chat-list` with folder, turns and relative times (`--here` for
 * this project), `chat-resume --last` by project, and chats that never
 * reached a provider left out of the list.
 */
import assert from "node:assert/strict";
import { createBufferedIo } from "../../../cli/io/io.ts";
import { main } from "../../../cli/main.ts";
import { openSqliteStore } from "../../../store/sqlite_store.ts";
import type { SessionStore } from "../../../store/store.ts";
import { sequentialIds } from "../../_fakes/clock.ts";
import { cliRunArgs, spawnCli } from "../_child.ts";
import {
  authErrorCassette,
  runCli,
  tempDir,
  textCassette,
  write,
} from "../_helpers.ts";

const T0 = Date.UTC(2026, 5, 1, 12, 0, 0);
const AGENT = {
  id: "mini",
  model: "gpt-5.4-mini",
  provider: "openai",
  system_prompt: "Be terse.",
};

interface Seeded {
  id: string;
  dir: string;
  /** Minutes before T0 of its last write. */
  agoMinutes: number;
  turns?: number;
  title?: string;
}

/** Writes sessions into `<home>/history.db`, each last written at its time. */
function seed(home: string, sessions: readonly Seeded[]): void {
  for (const s of sessions) {
    const at = T0 - s.agoMinutes * 60_000;
    const store: SessionStore = openSqliteStore(`${home}/history.db`, {
      clock: { now: () => at },
      ids: sequentialIds(`row-${s.id}`),
    });
    store.create({
      id: s.id,
      agentSlug: "mini",
      agentSnapshot: AGENT,
      modelId: AGENT.model,
      context: { workingDir: s.dir, fsScopeTier: "project" },
    });
    for (let i = 0; i < (s.turns ?? 1); i++) {
      store.commitTurn(s.id, {
        userText: i === 0 ? s.title ?? `question in ${s.id}` : `more ${i}`,
        rounds: [],
        finalText: "answer",
        tokensUsed: { input: 5, output: 1 },
        costs: [],
      });
    }
    store.close();
  }
}

/** `main` on a buffered io whose clock reads `now`. */
async function runAt(
  argv: string[],
  options: { env: Record<string, string>; cwd: string; now: number },
): Promise<{ code: number; stdout: string; stderr: string }> {
  const b = createBufferedIo({
    env: options.env,
    cwd: options.cwd,
    now: () => options.now,
  });
  const code = await main(argv, b.io);
  return { code, stdout: b.stdoutText(), stderr: b.stderrText() };
}

const A = "4a8a863e-0000-4000-8000-000000000001";
const B = "4a8a9f10-0000-4000-8000-000000000002";
const C = "c0ffee00-0000-4000-8000-000000000003";

Deno.test("chat-show, chat-export, chat-delete and chat-resume take a unique id prefix", async () => {
  await using dir = await tempDir();
  const home = `${dir.path}/home`;
  await Deno.mkdir(home);
  seed(home, [
    { id: A, dir: dir.path, agoMinutes: 30, title: "first" },
    { id: B, dir: dir.path, agoMinutes: 20, title: "second" },
    { id: C, dir: dir.path, agoMinutes: 10, title: "third" },
  ]);
  const env = { RELAVIUM_HOME: home, NO_COLOR: "1" };
  const opts = { env, cwd: dir.path };

  const shown = await runCli(["chat-show", "4a8a86", "--json"], opts);
  assert.equal(shown.code, 0, shown.stderr);
  assert.equal(JSON.parse(shown.stdout).sessionId, A);

  const ambiguous = await runCli(["chat-show", "4a8a"], opts);
  assert.equal(ambiguous.code, 2);
  assert.equal(ambiguous.stdout, "");
  assert.match(
    ambiguous.stderr,
    /^error: Session id prefix "4a8a" matches 2 sessions; give more characters:\n {2}4a8a9f10-[^\n]* {2}"second"\n {2}4a8a863e-[^\n]* {2}"first"\n$/,
  );
  const json = await runCli(["chat-show", "4a8a", "--json"], opts);
  assert.equal(JSON.parse(json.stderr).code, "usage");

  const short = await runCli(["chat-show", "c0f"], opts);
  assert.equal(short.code, 2);
  assert.match(short.stderr, /too short: give at least 4 characters/);

  const unknown = await runCli(["chat-show", "ffff"], opts);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /No session with id ffff/);

  const exported = await runCli(["chat-export", "c0ffee", "--json"], opts);
  assert.equal(exported.code, 0, exported.stderr);
  assert.equal(JSON.parse(exported.stdout.split("\n")[0] ?? "").sessionId, C);
  await Deno.stat(`${dir.path}/${C}.relavium.yaml`);

  const resumed = await runCli(
    ["chat-resume", "4a8a9f", "--json"],
    { ...opts, env: { ...env, RELAVIUM_OPENAI_API_KEY: "test-key-123456" } },
  );
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(
    JSON.parse(resumed.stdout.split("\n")[0] ?? "").sessionId,
    B,
  );

  const deleted = await runCli(["chat-delete", "4a8a86", "--yes"], opts);
  assert.equal(deleted.code, 0, deleted.stderr);
  assert.match(deleted.stderr, new RegExp(`Deleted session ${A}`));
  // Deleted sessions no longer compete: the prefix is unique now.
  const after = await runCli(["chat-show", "4a8a", "--json"], opts);
  assert.equal(JSON.parse(after.stdout).sessionId, B);
});

/** A home, a project (with `.relavium/`, and `src/` if asked) and another folder under `root`. */
async function folders(root: string, withSrc = false) {
  const home = `${root}/home`;
  const project = `${root}/proj`;
  const other = `${root}/elsewhere`;
  await Deno.mkdir(`${project}/.relavium/`, { recursive: true });
  if (withSrc) await Deno.mkdir(`${project}/src`, { recursive: true });
  await Deno.mkdir(other);
  await Deno.mkdir(home);
  return { home, project, other };
}

Deno.test("chat-list shows folder, turns and relative times, newest first; --here only this project's", async () => {
  await using dir = await tempDir();
  const { home, project, other } = await folders(dir.path, true);
  seed(home, [
    { id: A, dir: project, agoMinutes: 3 * 24 * 60, turns: 1, title: "a" },
    { id: B, dir: other, agoMinutes: 26 * 60, turns: 2, title: "b" },
    { id: C, dir: `${project}/src`, agoMinutes: 3, turns: 3, title: "c" },
  ]);
  const env = { RELAVIUM_HOME: home, NO_COLOR: "1", HOME: dir.path };

  const all = await runAt(["chat-list"], { env, cwd: other, now: T0 });
  assert.equal(all.code, 0, all.stderr);
  assert.deepEqual(all.stdout.split("\n"), [
    `c0ffee00  3 min ago   3 turns  ~/proj/src   mini  "c"`,
    `4a8a9f10  yesterday   2 turns  ~/elsewhere  mini  "b"`,
    `4a8a863e  3 days ago  1 turn   ~/proj       mini  "a"`,
    "",
  ]);

  // From a subfolder, --here is the whole project (root and below).
  const here = await runAt(["chat-list", "--here", "--json"], {
    env,
    cwd: `${project}/src`,
    now: T0,
  });
  const records = here.stdout.trimEnd().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(
    records.map((r) => [r.sessionId, r.folder, r.turns]),
    [[C, `${project}/src`, 3], [A, project, 1]],
  );

  const none = await runAt(["chat-list", "--here"], {
    env,
    cwd: home,
    now: T0,
  });
  assert.deepEqual([none.code, none.stdout], [0, ""]);
  assert.match(
    none.stderr,
    /^No sessions in .*home \(chat-list without --here/,
  );
});

Deno.test("chat-list --here shows ids that are unique among every folder's sessions", async () => {
  await using dir = await tempDir();
  const home = `${dir.path}/home`;
  const project = `${dir.path}/proj`;
  await Deno.mkdir(`${project}/.relavium/`, { recursive: true });
  await Deno.mkdir(home);
  const twin = "4a8a863e-1111-4000-8000-000000000009";
  seed(home, [
    { id: A, dir: project, agoMinutes: 5, title: "here" },
    { id: twin, dir: home, agoMinutes: 4, title: "elsewhere" },
  ]);
  const env = { RELAVIUM_HOME: home, NO_COLOR: "1", HOME: dir.path };
  const here = await runAt(["chat-list", "--here"], {
    env,
    cwd: project,
    now: T0,
  });
  assert.equal(here.code, 0, here.stderr);
  assert.deepEqual(here.stdout.split("\n"), [
    `4a8a863e-0  5 min ago  1 turn  ~/proj  mini  "here"`,
    "",
  ]);
  const shown = await runCli(["chat-show", "4a8a863e-0", "--json"], {
    env,
    cwd: project,
  });
  assert.equal(JSON.parse(shown.stdout).sessionId, A);
});

Deno.test("chat-resume --last picks this project's newest session, and says so when it falls back", async () => {
  await using dir = await tempDir();
  const { home, project, other } = await folders(dir.path);
  seed(home, [
    { id: A, dir: project, agoMinutes: 60 },
    { id: B, dir: other, agoMinutes: 1 },
  ]);
  const env = {
    RELAVIUM_HOME: home,
    NO_COLOR: "1",
    RELAVIUM_OPENAI_API_KEY: "test-key-123456",
  };
  /** `chat-resume --last` in `cwd`, checked to end as a chat does (exit 4). */
  const resumeLast = async (cwd: string) => {
    const r = await runCli(["chat-resume", "--last"], { env, cwd });
    assert.equal(r.code, 0, r.stderr);
    return r;
  };
  const inProject = await resumeLast(project);
  assert.match(
    inProject.stderr,
    new RegExp(
      `Resumed session ${A} \\(mini, gpt-5\\.4-mini\\) in ${project}: 1 prior turn`,
    ),
  );
  assert.doesNotMatch(inProject.stderr, /No session in/);

  const elsewhere = `${dir.path}/third`;
  await Deno.mkdir(elsewhere);
  const fallback = await resumeLast(elsewhere);
  // The newest of any folder (A was just written by the resume above).
  assert.match(
    fallback.stderr,
    new RegExp(
      `No session in ${elsewhere}: resuming the newest session, from ${project}\\nResumed session ${A} \\(mini, gpt-5\\.4-mini\\) in ${project}`,
    ),
  );
});

Deno.test("a chat that ends before any turn leaves no listed session; a failed turn that reached the provider stays", async () => {
  await using dir = await tempDir();
  const home = `${dir.path}/home`;
  const env = { RELAVIUM_HOME: home, NO_COLOR: "1" };
  await write(`${dir.path}/none.json`, textCassette("anthropic", []));
  const empty = await runCli(["chat", "--fixture", "none.json"], {
    env,
    cwd: dir.path,
    stdin: "",
  });
  assert.equal(empty.code, 0, empty.stderr);
  assert.doesNotMatch(empty.stderr, /Resume with/);
  const listed = await runCli(["chat-list", "--json"], { env, cwd: dir.path });
  assert.deepEqual([listed.code, listed.stdout], [0, ""]);

  // A provider error on the first turn: the call was made, so it lists.
  await write(
    `${dir.path}/fail.json`,
    authErrorCassette("anthropic"),
  );
  const failed = await runCli(["chat", "--fixture", "fail.json"], {
    env,
    cwd: dir.path,
    stdin: "hello?\n",
  });
  assert.equal(failed.code, 1, failed.stderr);
  assert.match(failed.stderr, /Resume with: relavium chat-resume /);
  const after = await runCli(["chat-list", "--json"], { env, cwd: dir.path });
  const rows = after.stdout.trimEnd().split("\n").map((l) => JSON.parse(l));
  assert.equal(rows.length, 1);
  assert.deepEqual([rows[0].turns, rows[0].folder], [0, dir.path]);
});

Deno.test("the real CLI: chat-show by prefix, and chat-list into a closed pipe is a quiet exit 0", async () => {
  await using dir = await tempDir();
  const home = `${dir.path}/home`;
  await Deno.mkdir(home);
  seed(
    home,
    Array.from({ length: 12 }, (_, i) => ({
      id: `${String(i).padStart(4, "0")}aaaa-0000-4000-8000-000000000000`,
      dir: dir.path,
      agoMinutes: i,
    })),
  );
  const env = { RELAVIUM_HOME: home, NO_COLOR: "1" };
  await using shown = spawnCli(["chat-show", "0007aa", "--json"], {
    cwd: dir.path,
    env,
  });
  const line = await shown.readUntil((l) => l.startsWith("{"));
  assert.equal(
    JSON.parse(line ?? "{}").sessionId,
    "0007aaaa-0000-4000-8000-000000000000",
  );
  assert.equal((await shown.finished()).code, 0);

  // stdout's reading end closed before the listing is written.
  const child = new Deno.Command(Deno.execPath(), {
    args: cliRunArgs(["chat-list"]),
    cwd: dir.path,
    clearEnv: true,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  await child.stdout.cancel();
  const stderr = await new Response(child.stderr).text();
  const status = await child.status;
  assert.equal(status.code, 0, stderr);
  assert.doesNotMatch(stderr, /BrokenPipe|error/);
});
