/**
 * `[chat].command_timeout_ms` (a module addition to config.md): parsed
 * strictly, resolved with its source, and end to end through
 * `main(argv, io)` with a cassette: a `run_command` that outlives the
 * timeout is killed with its whole process group, the tool result says
 * so, the session completes, and no process of the command remains
 * ; a user's `!` command likewise. The leftover check scans
 * `/proc/<pid>/cmdline` for marker arguments (`_procs.ts`), polling a
 * bounded number of times; no wall-clock assertion. Linux only (`/proc`).
 */
import assert from "node:assert/strict";
import { createBufferedIo } from "../../../cli/io/io.ts";
import { main } from "../../../cli/main.ts";
import {
  loadTrustedConfig as loadCliConfig,
  parseEvents,
  runCli,
  tempDir,
  trustProjectFiles,
  write,
} from "../_helpers.ts";
import { markedPids, scanUntil } from "../_procs.ts";
import {
  callChunks,
  type StrictCall,
  strictCassette,
} from "../_kit/cassette.ts";

const linux = Deno.build.os === "linux";

/** Marker arguments: no other test or tool on the machine sleeps this long. */
const MARKERS = ["37.31", "37.32"];
const SCRIPT = `sleep ${MARKERS[0]} & sleep ${MARKERS[1]}; wait`;

/** Matches the markers and not itself. */
const PATTERN = "37\\.3[12]";

function leftovers(): Promise<number[]> {
  return markedPids(PATTERN);
}

/** Scans until no marker process remains (bounded). */
function noLeftovers(): Promise<number[]> {
  return scanUntil(PATTERN, (pids) => pids.length === 0);
}

/** The agent, the cassette and a project config allowing the script. */
async function setUp(dir: string, calls: StrictCall[]): Promise<void> {
  await write(
    `${dir}/helper.agent.yaml`,
    "id: helper\nmodel: claude-haiku-4-5\nprovider: anthropic\nsystem_prompt: Help.\ntools:\n  - run_command\n",
  );
  await write(`${dir}/c.json`, strictCassette(calls));
  await write(
    `${dir}/.relavium/project.toml`,
    `[chat]\ncommand_timeout_ms = 300\nallowed_command_globs = [${
      JSON.stringify(`sh -c ${SCRIPT}`)
    }]\n`,
  );
}

/** One model turn calling `run_command` on the script. */
function cassetteCall(): StrictCall {
  return {
    expect: { tools: ["run_command"] },
    chunks: callChunks("t1", "run_command", {
      command: "sh",
      args: ["-c", SCRIPT],
    }),
  };
}

Deno.test({
  name:
    "main() chat --mode auto --json: command_timeout_ms kills a run_command with its grandchildren",
  ignore: !linux,
  async fn() {
    assert.deepEqual(await leftovers(), [], "a previous run left processes");
    // The scan sees a live marker process (no false pass from a blind scan).
    const probe = new Deno.Command("sleep", { args: [MARKERS[0] ?? ""] })
      .spawn();
    assert.ok((await leftovers()).includes(probe.pid), "the scan is blind");
    probe.kill("SIGKILL");
    await probe.status;
    await using dir = await tempDir();
    await setUp(dir.path, [cassetteCall()]);
    const argv = "chat --agent helper.agent.yaml --fixture c.json --json";
    const r = await runCli([...argv.split(" "), "--mode", "auto"], {
      env: { RELAVIUM_HOME: `${dir.path}/home` },
      cwd: dir.path,
      stdin: "run it\n",
    });
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stderr, "");
    const events = parseEvents(r.stdout);
    const results = events.filter((e) => e.type === "agent:tool_result");
    assert.equal(results.length, 1, r.stdout);
    const result = results[0];
    assert.ok(result?.type === "agent:tool_result");
    assert.equal(result.toolId, "run_command");
    assert.equal(result.success, false);
    assert.match(
      result.outputSummary ?? "",
      /sh timed out after 300 ms and was killed/,
    );
    const done = events.find((e) => e.type === "session:turn_completed");
    assert.ok(done?.type === "session:turn_completed", r.stdout);
    assert.equal(done.error?.code, "tool_failed");
    assert.match(done.error?.message ?? "", /timed out after 300 ms/);
    // stdin ends after one turn: the chat ends as every --json chat does
    assert.equal(events.at(-1)?.type, "session:cancelled");
    assert.deepEqual(
      await noLeftovers(),
      [],
      "a process of the command survived",
    );
  },
});

Deno.test({
  name:
    "main() interactive chat: a user's ! command honours command_timeout_ms and leaves no process behind",
  ignore: !linux,
  async fn() {
    assert.deepEqual(await leftovers(), [], "a previous run left processes");
    await using dir = await tempDir();
    await setUp(dir.path, []);
    await trustProjectFiles(dir.path, { RELAVIUM_HOME: `${dir.path}/home` });
    const b = createBufferedIo({
      env: { RELAVIUM_HOME: `${dir.path}/home`, NO_COLOR: "1" },
      cwd: dir.path,
      stdin: `!sh -c '${SCRIPT}'\n`,
      stdinIsTerminal: true,
      stdoutIsTerminal: true,
    });
    const argv = "chat --agent helper.agent.yaml --fixture c.json";
    const code = await main([...argv.split(" "), "--mode", "auto"], b.io);
    const err = b.stderrText();
    assert.equal(code, 4, err);
    assert.ok(
      err.includes(
        `! sh -c ${SCRIPT}: Command failed: sh timed out after 300 ms and was killed\n`,
      ),
      err,
    );
    assert.deepEqual(
      await noLeftovers(),
      [],
      "a process of the command survived",
    );
  },
});

Deno.test("loadCliConfig() reads [chat].command_timeout_ms strictly", async (t) => {
  const load = async (text: string | undefined) => {
    await using dir = await tempDir();
    if (text !== undefined) {
      await write(`${dir.path}/p/.relavium/project.toml`, text);
    }
    return await loadCliConfig({
      cwd: `${dir.path}/p`,
      env: (n) =>
        n === "HOME"
          ? dir.path
          : n === "RELAVIUM_HOME"
          ? `${dir.path}/rh`
          : undefined,
    });
  };
  await t.step("built-in default 30 s", async () => {
    const r = await load(undefined);
    assert.ok(r.ok);
    if (r.ok) {
      assert.deepEqual(r.value.resolved.chat.commandTimeoutMs, {
        value: 30_000,
        source: "built-in",
      });
    }
  });
  await t.step("a project value, with its source", async () => {
    const r = await load("[chat]\ncommand_timeout_ms = 120000\n");
    assert.ok(r.ok);
    if (r.ok) {
      assert.deepEqual(r.value.resolved.chat.commandTimeoutMs, {
        value: 120_000,
        source: "project",
      });
    }
  });
  const bad: Array<[string, string]> = [
    ["0", "must be a positive integer"],
    ["-5", "must be a positive integer"],
    ["1.5", "must be an integer"],
    ['"300"', "must be a number"],
    ["120001", "must be at most 120000 (the process-timeout ceiling)"],
  ];
  for (const [value, want] of bad) {
    await t.step(`refuses ${value}`, async () => {
      const r = await load(`[chat]\ncommand_timeout_ms = ${value}\n`);
      assert.equal(r.ok, false);
      if (r.ok) return;
      assert.equal(r.error.code, "invalid_config");
      assert.ok(
        r.error.message.includes(
          `project.toml:2: chat.command_timeout_ms: ${want}`,
        ),
        r.error.message,
      );
    });
  }
});

Deno.test("main() config show --json lists chat.command_timeout_ms with its source", async () => {
  await using dir = await tempDir();
  await write(
    `${dir.path}/.relavium/project.toml`,
    "[chat]\ncommand_timeout_ms = 5000\n",
  );
  const r = await runCli(["config", "show", "--json"], {
    env: { RELAVIUM_HOME: `${dir.path}/home` },
    cwd: dir.path,
  });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /chat\.command_timeout_ms/);
  assert.match(r.stdout, /5000/);
});
