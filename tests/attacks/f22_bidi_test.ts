/**
 * Attack table (F22): bidirectional controls (U+202A–U+202E,
 * U+2066–U+2069, U+200E/U+200F, U+061C) never reach the terminal. The
 * model's text loses them; what a person approves (a path, a command, a
 * tool line) shows each as a visible `<U+XXXX>` so the name shown is the
 * name used. Every row runs an interactive chat (a fake TTY) with a
 * cassette-scripted model and answers `n`.
 */
import assert from "node:assert/strict";
import { tempDir, write } from "../cli/_helpers.ts";
import { interactiveChat, textCall, toolCall, writeScript } from "./_kit.ts";

const BIDI = /[\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]/;

interface Row {
  name: string;
  tools: string[];
  config?: string;
  mode?: string;
  calls: unknown[];
  answers: string[];
  /** Pieces stdout + stderr must contain, in order. */
  shows: string[];
  /** What must not exist afterwards (relative to the workspace). */
  absent?: string[];
}

const ROWS: Row[] = [
  {
    name: "the model's text: every bidi control is removed",
    tools: [],
    calls: [
      textCall(
        "safe\u202e.exe\u202c and \u2066iso\u2069 \u200emark\u200f \u202aemb\u202b \u202doverride\u061c",
      ),
    ],
    answers: [],
    shows: ["safe.exe and iso mark emb override"],
  },
  {
    name: "an approval of a write shows the override in the path",
    tools: ["write_file"],
    mode: "ask",
    calls: [toolCall("write_file", { path: "a\u202etxt.sh", content: "x" })],
    answers: ["n"],
    shows: ["Approve write_file a<U+202E>txt.sh? "],
    absent: ["a\u202etxt.sh"],
  },
  {
    name: "an approval of a command shows isolates in its arguments",
    tools: ["run_command"],
    config: '[chat]\nallowed_command_globs = ["echo *"]\n',
    mode: "accept-edits",
    calls: [
      toolCall("run_command", {
        command: "echo",
        args: ["\u2067rm -rf /\u2069", "\u200fok"],
      }),
    ],
    answers: ["n"],
    shows: ["<U+2067>rm -rf /<U+2069>", "<U+200F>ok", "[n] no "],
  },
];

for (const row of ROWS) {
  Deno.test(`F22 bidi attack: ${row.name}`, async () => {
    await using dir = await tempDir();
    const ws = `${dir.path}/ws`;
    await Deno.mkdir(ws);
    const home = `${dir.path}/home`;
    await Deno.mkdir(home);
    if (row.config !== undefined) {
      await write(`${home}/config.toml`, row.config);
    }
    await writeScript(dir.path, { tools: row.tools, calls: row.calls });
    const r = await interactiveChat(dir.path, {
      cwd: ws,
      env: { RELAVIUM_HOME: home },
      lines: ["do it", ...row.answers],
      mode: row.mode ?? "ask",
    });
    const all = r.stdout + r.stderr;
    assert.equal(r.code, 4, all);
    assert.doesNotMatch(all, BIDI, "no bidi control reaches the terminal");
    let at = 0;
    for (const piece of row.shows) {
      const i = all.indexOf(piece, at);
      assert.ok(i >= 0, `missing in order: ${JSON.stringify(piece)}\n${all}`);
      at = i + piece.length;
    }
    for (const path of row.absent ?? []) {
      await assert.rejects(Deno.lstat(`${ws}/${path}`), Deno.errors.NotFound);
    }
  });
}
