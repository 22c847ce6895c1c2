/**
 * Each mode with and without a terminal, through `chat`: one write
 * inside the jail, what the model is offered, whether a person is asked,
 * whether the file is written, and the prompt naming the mode.
 */
import assert from "node:assert/strict";
import {
  interactiveChat,
  scriptFlags,
  textCall,
  toolCall,
  writeScript,
} from "../attacks/_kit.ts";
import { runCli, tempDir } from "./_helpers.ts";

type Outcome = "asked" | "ran" | "refused";

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
    const env = { RELAVIUM_HOME: `${dir.path}/home`, NO_COLOR: "1" };
    const r = tty
      ? await interactiveChat(dir.path, {
        cwd: ws,
        env,
        lines: ["write a.txt", ...(outcome === "asked" ? ["y"] : [])],
        mode,
      })
      : await runCli(
        ["chat", ...scriptFlags(dir.path), "--mode", mode],
        { env, cwd: ws, stdin: "write a.txt\n" },
      );
    assert.equal(r.code, 4, r.stderr);
    assert.equal(r.stderr.includes("Approve write_file"), outcome === "asked");
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
