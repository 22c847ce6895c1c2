/**
 * Each mode with and without a terminal, through `chat`: one write
 * inside the jail and one allowlisted command, what the model is offered,
 * whether a person is asked, whether the file is written or the command
 * ran, and the prompt naming the mode.
 */
import assert from "node:assert/strict";
import {
  interactiveChat,
  scriptFlags,
  textCall,
  toolCall,
  writeScript,
} from "../../attacks/_kit.ts";
import { runCli, tempDir, write } from "../_helpers.ts";

type Outcome = "asked" | "ran" | "refused";

/**
 * Runs the script of `dir` in `dir/ws` through `chat --mode <mode>`: on a
 * fake terminal (answering `y` when asked) or with piped stdin, sending
 * `message`. Asserts the chat ended at its input's end and asked for
 * `tool` exactly when the row's outcome is `asked`.
 */
async function chatIn(
  dir: string,
  row: { mode: string; tty: boolean; outcome: Outcome },
  message: string,
  tool: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const asked = row.outcome === "asked";
  const env = { RELAVIUM_HOME: `${dir}/home`, NO_COLOR: "1" };
  const cwd = `${dir}/ws`;
  const r = row.tty
    ? await interactiveChat(dir, {
      cwd,
      env,
      lines: [message, ...(asked ? ["y"] : [])],
      mode: row.mode,
    })
    : await runCli(
      ["chat", ...scriptFlags(dir), "--mode", row.mode],
      { env, cwd, stdin: `${message}\n` },
    );
  assert.equal(
    r.code,
    row.tty ? 4 : row.outcome === "refused" ? 1 : 0,
    r.stderr,
  );
  assert.equal(r.stderr.includes(`Approve ${tool}`), asked);
  return r;
}

const TABLE: Array<[string, boolean, Outcome, RegExp?]> = [
  ["ask", true, "asked"],
  [
    "ask",
    false,
    "refused",
    /needs approval in ask mode and there is no terminal/,
  ],
  ["plan", true, "refused", /not allowed in plan mode/],
  ["plan", false, "refused", /not allowed in plan mode/],
  ["accept-edits", true, "ran"],
  ["accept-edits", false, "ran"],
  ["auto", true, "ran"],
  ["auto", false, "ran"],
];

for (const [mode, tty, outcome, why] of TABLE) {
  Deno.test(`mode ${mode} ${tty ? "on a terminal" : "without one"}: a write in the jail is ${outcome}`, async () => {
    await using dir = await tempDir();
    const ws = `${dir.path}/ws`;
    await Deno.mkdir(ws);
    const offered = mode === "plan"
      ? ["read_file"]
      : ["read_file", "write_file"];
    const write = toolCall("write_file", { path: "a.txt", content: "x\n" });
    await writeScript(dir.path, {
      tools: ["read_file", "write_file"],
      calls: [
        { ...(write as object), expect: { tools: offered } },
        ...(outcome === "refused" ? [] : [textCall("Done.")]),
      ],
    });
    const r = await chatIn(
      dir.path,
      { mode, tty, outcome },
      "write a.txt",
      "write_file",
    );
    const written = await Deno.readTextFile(`${ws}/a.txt`).then(
      () => true,
      () => false,
    );
    assert.equal(written, outcome !== "refused");
    if (why !== undefined) assert.match(r.stderr, why);
    if (tty) {
      assert.equal(
        r.stderr.includes(`\n${mode} > `),
        mode !== "ask",
        "the prompt names a mode other than the default",
      );
    }
  });
}

// An allowlisted command: only `auto` runs it unasked; `ask` and
// `accept-edits` ask on a terminal and refuse without one; `plan` hides it.
const COMMANDS: Array<[string, boolean, Outcome, RegExp?]> = [
  ["ask", true, "asked"],
  ["ask", false, "refused", /needs approval in ask mode and there is no/],
  ["plan", true, "refused", /not allowed in plan mode/],
  ["plan", false, "refused", /not allowed in plan mode/],
  ["accept-edits", true, "asked"],
  [
    "accept-edits",
    false,
    "refused",
    /needs approval in accept-edits mode and there is no/,
  ],
  ["auto", true, "ran"],
  ["auto", false, "ran"],
];

for (const [mode, tty, outcome, why] of COMMANDS) {
  Deno.test(`mode ${mode} ${tty ? "on a terminal" : "without one"}: an allowlisted command is ${outcome}`, async () => {
    await using dir = await tempDir();
    await Deno.mkdir(`${dir.path}/ws`);
    await write(
      `${dir.path}/home/config.toml`,
      '[chat]\nallowed_commands = ["echo hello"]\n',
    );
    const offered = mode === "plan"
      ? ["read_file"]
      : ["read_file", "run_command"];
    const run = toolCall("run_command", { command: "echo", args: ["hello"] });
    await writeScript(dir.path, {
      tools: ["read_file", "run_command"],
      calls: [
        { ...(run as object), expect: { tools: offered } },
        // The strict cassette checks the model got the command's exit 0.
        ...(outcome === "refused" ? [] : [{
          ...(textCall("Done.") as object),
          expect: { toolResultFor: "c1", messagesInclude: ['"exitCode":0'] },
        }]),
      ],
    });
    const r = await chatIn(
      dir.path,
      { mode, tty, outcome },
      "say hello",
      "run_command",
    );
    if (tty) {
      assert.equal(
        /echo exited 0/.test(r.stderr),
        outcome !== "refused",
        "the tool line's summary says the command ran",
      );
    }
    if (why !== undefined) assert.match(r.stderr, why);
    if (outcome === "refused") {
      assert.doesNotMatch(r.stderr, /allowlist/, "no allowlist hint");
    }
  });
}
