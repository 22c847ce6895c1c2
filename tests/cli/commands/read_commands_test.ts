import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { openSqliteStore } from "../../../store/sqlite_store.ts";
import { sequentialIds, steppingClock } from "../../_fakes/clock.ts";
import { runCli, tempDir, write } from "../_helpers.ts";
import { cost } from "../../store/_harness.ts";

/** Three sessions: s-old (one turn), s-new (two turns, a tool), s-gone (deleted). */
function seed(home: string): void {
  const store = openSqliteStore(`${home}/history.db`, {
    clock: steppingClock(Date.UTC(2026, 0, 1), 1000),
    ids: sequentialIds("row"),
  });
  const ctx = { workingDir: "/w", fsScopeTier: "sandboxed" as const };
  store.create({
    id: "s-old",
    agentSlug: "mini",
    modelId: "gpt-5.4-mini",
    context: ctx,
  });
  store.commitTurn("s-old", {
    userText: "first question",
    rounds: [],
    finalText: "first answer",
    modelId: "gpt-5.4-mini",
    tokensUsed: { input: 10, output: 2 },
    costs: [cost("gpt-5.4-mini", 1650)],
  });
  store.create({ id: "s-new", agentSlug: "reviewer", context: ctx });
  store.commitTurn("s-new", {
    userText: "read it \x1b[2J please",
    rounds: [{
      calls: [{
        type: "tool_call",
        id: "session-tool:1:0",
        name: "read_file",
        argsBytes: 12,
      }],
      results: [{
        type: "tool_result",
        toolCallId: "session-tool:1:0",
        resultBytes: 40,
        outcome: "ok",
      }],
    }],
    finalText: "It says hi.",
    modelId: "claude-haiku-4-5",
    tokensUsed: { input: 30, output: 5 },
    costs: [],
  });
  store.commitTurn("s-new", {
    userText: "thanks",
    rounds: [],
    finalText: "",
    tokensUsed: { input: 3, output: 0 },
    costs: [],
  });
  store.create({ id: "s-gone", agentSlug: "mini", context: ctx });
  store.softDelete("s-gone");
  store.close();
}

Deno.test("chat-list prints newest first, deleted excluded, human and JSON", async () => {
  await using dir = await tempDir();
  seed(dir.path);
  const env = { RELAVIUM_HOME: dir.path };
  const human = await runCli(["chat-list"], { env, cwd: dir.path });
  assert.equal(human.code, 0);
  const lines = human.stdout.trimEnd().split("\n");
  assert.equal(lines.length, 2);
  assert.match(
    lines[0] ?? "",
    /^s-new {2}2026-01-01 {2}2 turns {2}\/w {2}reviewer {2}"read it \\u001b\[2J please"$/,
  );
  assert.match(
    lines[1] ?? "",
    /^s-old {2}2026-01-01 {2}1 turn {3}\/w {2}mini {6}"first question"$/,
  );
  const json = await runCli(["chat-list", "--json"], { env, cwd: dir.path });
  assert.equal(json.code, 0);
  assert.equal(json.stderr, "");
  const records = json.stdout.trimEnd().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(records.map((r) => r.sessionId), ["s-new", "s-old"]);
  assert.deepEqual(Object.keys(records[0]), [
    "sessionId",
    "agentSlug",
    "title",
    "status",
    "modelId",
    "createdAt",
    "updatedAt",
    "totalCostMicrocents",
    "unaccountedCalls",
    "folder",
    "turns",
  ]);
  // Created with no model; its last turn that named one ran on haiku.
  assert.equal(records[0].modelId, "claude-haiku-4-5");
  assert.equal(records[1].totalCostMicrocents, 1650);
  assert.equal(records[1].unaccountedCalls, 0);
});

Deno.test("chat-list on a fresh machine prints nothing and creates nothing", async () => {
  await using dir = await tempDir();
  const r = await runCli(["chat-list", "--json"], {
    env: { RELAVIUM_HOME: dir.path },
    cwd: dir.path,
  });
  assert.deepEqual([r.code, r.stdout, r.stderr], [0, "", ""]);
  assert.deepEqual([...Deno.readDirSync(dir.path)], []);
});

Deno.test("chat-show prints the transcript, tool names and totals", async () => {
  await using dir = await tempDir();
  seed(dir.path);
  const env = { RELAVIUM_HOME: dir.path };
  const r = await runCli(["chat-show", "s-new"], { env, cwd: dir.path });
  assert.equal(r.code, 0);
  assert.ok(!r.stdout.includes("\x1b"), "control sequences stripped");
  assert.match(
    r.stdout,
    /--- turn 1 \(claude-haiku-4-5\) ---\nuser: read it {2}please\ntools: read_file\nassistant: It says hi\.\n/,
  );
  assert.match(r.stdout, /--- turn 2 ---\nuser: thanks\nassistant: \n/);
  assert.match(
    r.stdout,
    /Totals: 2 turns, 33 input tokens, 5 output tokens, price unknown\nTurns used: 2 of 50 \(the hard cap, \[chat\] max_turns; compaction and resume never lower it\)\n$/,
    "$0 with tokens",
  );
  const priced = await runCli(["chat-show", "s-old"], { env, cwd: dir.path });
  assert.match(
    priced.stdout,
    /Totals: 1 turns, 10 input tokens, 2 output tokens, \$0\.00001650\nTurns used: 1 of 50 \(the hard cap[^\n]*\nCost by model:\n {2}gpt-5\.4-mini {2}\$0\.00001650 {2}1 call, 10 input, 2 output tokens\n$/,
  );
  const json = await runCli(["chat-show", "s-new", "--json"], {
    env,
    cwd: dir.path,
  });
  const shown = JSON.parse(json.stdout);
  assert.deepEqual(shown.turns[0], {
    user: "read it \x1b[2J please",
    assistant: "It says hi.",
    tools: ["read_file"],
    model: "claude-haiku-4-5",
    compacted: false,
  });
  assert.equal(shown.totalInputTokens, 33);
  assert.deepEqual([shown.boundaries, shown.costs], [[], []]);
});

Deno.test("chat-show of an unknown or deleted id exits 2 not_found", async () => {
  await using dir = await tempDir();
  seed(dir.path);
  for (const id of ["nope", "s-gone"]) {
    const r = await runCli(["chat-show", id, "--json"], {
      env: { RELAVIUM_HOME: dir.path },
      cwd: dir.path,
    });
    assert.equal(r.code, 2);
    assert.equal(r.stdout, "");
    assert.deepEqual(JSON.parse(r.stderr), {
      type: "error",
      code: "not_found",
      message: `No session with id ${id}`,
    });
  }
});

Deno.test("chat-delete needs a terminal or --yes", async () => {
  await using dir = await tempDir();
  seed(dir.path);
  const env = { RELAVIUM_HOME: dir.path, NO_COLOR: "1" };
  const piped = await runCli(["chat-delete", "s-old"], { env, cwd: dir.path });
  assert.equal(piped.code, 2);
  assert.match(piped.stderr, /needs --yes/);
  /** `chat-delete s-old` on a terminal, answering `answer`. */
  const deleteOld = (answer: string) =>
    runCli(["chat-delete", "s-old"], {
      env,
      cwd: dir.path,
      tty: true,
      stdin: `${answer}\n`,
    });
  const declined = await deleteOld("n");
  assert.equal(declined.code, 0);
  assert.match(
    declined.stderr,
    /Delete session s-old "first question"\? \[y\/N\] Not deleted/,
  );
  const list1 = await runCli(["chat-list", "--json"], { env, cwd: dir.path });
  assert.equal(list1.stdout.trimEnd().split("\n").length, 2);
  const confirmed = await deleteOld("y");
  assert.equal(confirmed.code, 0);
  const yes = await runCli(["chat-delete", "s-new", "--yes", "--json"], {
    env,
    cwd: dir.path,
  });
  assert.deepEqual([yes.code, yes.stdout], [
    0,
    '{"sessionId":"s-new","deleted":true}\n',
  ]);
  const list2 = await runCli(["chat-list", "--json"], { env, cwd: dir.path });
  assert.equal(list2.stdout, "");
  const again = await runCli(["chat-delete", "s-new", "--yes"], {
    env,
    cwd: dir.path,
  });
  assert.equal(again.code, 2);
});

Deno.test("config path and config show report files and sources", async () => {
  await using dir = await tempDir();
  await write(
    `${dir.path}/p/.relavium/project.toml`,
    "[chat]\nmax_turns = 12\n",
  );
  const env = { RELAVIUM_HOME: `${dir.path}/rh`, HOME: dir.path };
  const path = await runCli(["config", "path", "--cwd", "p"], {
    env,
    cwd: dir.path,
  });
  assert.equal(path.code, 0);
  assert.equal(
    path.stdout,
    [
      `global     ${dir.path}/rh/config.toml (missing)`,
      `workspace  ${dir.path}/p/.relavium/workspace.toml (missing)`,
      `project    ${dir.path}/p/.relavium/project.toml`,
      `history    ${dir.path}/rh/history.db (missing)`,
      "",
    ].join("\n"),
  );
  const show = await runCli(["config", "show", "--json"], {
    env,
    cwd: `${dir.path}/p`,
  });
  assert.equal(show.code, 0);
  const { settings, files } = JSON.parse(show.stdout);
  assert.deepEqual(
    settings.find((s: { key: string }) => s.key === "chat.max_turns"),
    { key: "chat.max_turns", value: 12, source: "project" },
  );
  assert.equal(files.projectRoot, `${dir.path}/p`);
  const plain = await runCli(["config", "show"], { env, cwd: `${dir.path}/p` });
  assert.match(plain.stdout, /^chat\.max_turns +\= 12 {2}# project$/m);
});

Deno.test("doctor reports key presence, never values, and exits 1 without the default key", async () => {
  await using dir = await tempDir();
  const base = { RELAVIUM_HOME: dir.path };
  const missing = await runCli(["doctor"], { env: base, cwd: dir.path });
  assert.equal(missing.code, 1);
  assert.match(
    missing.stderr,
    /problem: No API key for anthropic \(the default provider\): set RELAVIUM_ANTHROPIC_API_KEY or ANTHROPIC_API_KEY/,
  );
  const present = await runCli(["doctor", "--json"], {
    env: { ...base, ANTHROPIC_API_KEY: "sk-ant-very-secret" },
    cwd: dir.path,
  });
  assert.equal(present.code, 0);
  assert.ok(!present.stdout.includes("very-secret"));
  const report = JSON.parse(present.stdout);
  assert.deepEqual(report.keys[0], {
    provider: "anthropic",
    status: "found",
    variable: "ANTHROPIC_API_KEY",
  });
  await write(`${dir.path}/config.toml`, "[chat]\nmax_turns = -1\n");
  const invalid = await runCli(["doctor"], { env: base, cwd: dir.path });
  assert.equal(invalid.code, 1);
  assert.match(invalid.stdout, /^config +invalid$/m);
  assert.match(invalid.stderr, /config\.toml:2: chat\.max_turns/);
});

Deno.test("a store that cannot open is an environmental fault (exit 1)", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/history.db`);
  const r = await runCli(["chat-list", "--json"], {
    env: { RELAVIUM_HOME: dir.path },
    cwd: dir.path,
  });
  assert.equal(r.code, 1);
  assert.equal(JSON.parse(r.stderr).code, "internal");
});

Deno.test("doctor --permissions prints least-privilege flags", async () => {
  await using dir = await tempDir();
  const r = await runCli(["doctor", "--permissions", "--json"], {
    env: { RELAVIUM_HOME: `${dir.path}/rh`, ANTHROPIC_API_KEY: "k" },
    cwd: dir.path,
  });
  assert.equal(r.code, 0);
  const { permissions } = JSON.parse(r.stdout);
  assert.deepEqual(permissions.flags.slice(0, 4), [
    // the CLI's own modules load lazily from its source folder
    `--allow-read=${dir.path},${dir.path}/rh,${
      fileURLToPath(new URL("../../..", import.meta.url)).replace(/\/$/, "")
    }`,
    `--allow-write=${dir.path}/rh`,
    "--allow-run=git",
    "--allow-net=api.anthropic.com:443",
  ]);
  assert.equal(permissions.flags.at(-1), "--no-prompt");
  const plain = await runCli(["doctor", "--permissions"], {
    env: { RELAVIUM_HOME: `${dir.path}/rh`, ANTHROPIC_API_KEY: "k" },
    cwd: dir.path,
  });
  assert.match(
    plain.stdout,
    /^ {2}deno run --allow-read=\S+ .* --no-prompt \/\S+\/cli\.ts$/m,
  );
});
