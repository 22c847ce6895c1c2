/**
 * The approval prompt of an interactive chat (a fake TTY, `ask` mode, a
 * cassette-scripted model): on its own line after the model's text, a new
 * file's first lines, a replaced file's diff and the bytes it overwrites,
 * an unrecognised answer named and asked again, a bounded number of
 * times, and a declined call said plainly with how to go on.
 */
import assert from "node:assert/strict";
import {
  interactiveChat,
  textCall,
  toolCall,
  writeScript,
} from "../../attacks/_kit.ts";
import { tempDir, write } from "../_helpers.ts";

function writeCall(path: string, content: string, before = ""): unknown {
  const call = toolCall("write_file", { path, content }) as {
    chunks: unknown[];
  };
  const text = before === "" ? [] : [{ type: "text_delta", text: before }];
  return { chunks: [...text, ...call.chunks] };
}

async function chat(
  dir: string,
  calls: unknown[],
  answers: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  await writeScript(dir, { tools: ["write_file"], calls });
  return await interactiveChat(dir, {
    cwd: `${dir}/ws`,
    env: { RELAVIUM_HOME: `${dir}/home` },
    lines: ["write it", ...answers],
    mode: "ask",
  });
}

function inOrder(text: string, pieces: string[]): void {
  let at = 0;
  for (const piece of pieces) {
    const i = text.indexOf(piece, at);
    assert.ok(i >= 0, `missing in order: ${JSON.stringify(piece)}\n${text}`);
    at = i + piece.length;
  }
}

/** The workspace file `name` under `dir` holds `text`. */
async function assertFile(
  dir: string,
  name: string,
  text: string,
  message?: string,
): Promise<void> {
  assert.equal(await Deno.readTextFile(`${dir}/ws/${name}`), text, message);
}

Deno.test("approval of a new file: its first lines, on its own line after the model's text", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/ws`);
  const r = await chat(dir.path, [
    writeCall("hello.txt", "hello\nworld\n", "I will write the file."),
    textCall("Done."),
  ], ["y"]);
  assert.equal(r.code, 4, r.stderr);
  assert.equal(
    r.stdout,
    "I will write the file.\nDone.\n",
    "the text's line ends",
  );
  inOrder(r.stderr, [
    "● write_file hello.txt\n",
    "write_file new file, 2 lines (12 bytes):\n  + hello\n  + world\n",
    "Approve write_file hello.txt? [y] once  [a] always  [n] no ",
    "  ⎿ Wrote 12 bytes\n",
  ]);
  await assertFile(dir.path, "hello.txt", "hello\nworld\n");
});

Deno.test("approval of a replacement: the diff and the bytes it overwrites", async () => {
  await using dir = await tempDir();
  await write(`${dir.path}/ws/notes.md`, "# Notes\nold line\nkeep\n");
  const r = await chat(dir.path, [
    writeCall("notes.md", "# Notes\nnew line\nkeep\n"),
  ], ["n"]);
  assert.equal(r.code, 4, r.stderr);
  inOrder(r.stderr, [
    "write_file overwrites 22 bytes with 22 bytes; changes:\n",
    "    # Notes\n  - old line\n  + new line\n    keep\n",
    "Approve write_file notes.md? ",
  ]);
  await assertFile(
    dir.path,
    "notes.md",
    "# Notes\nold line\nkeep\n",
    "declined: unchanged",
  );
});

Deno.test("approval: maybe is named and asked again; a no is said plainly with how to go on", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/ws`);
  const r = await chat(dir.path, [writeCall("a.txt", "x\n")], ["maybe", "n"]);
  assert.equal(r.code, 4, r.stderr);
  inOrder(r.stderr, [
    "Approve write_file a.txt? [y] once  [a] always  [n] no ",
    '"maybe" is not an answer. Please answer y (once), a (always) or n (no): ',
    "[turn failed: tool_denied] Tool call denied (user_rejected): rejected by the user\n",
    "You declined the tool call; nothing ran. Say what to do instead, or resend to be asked again\n",
  ]);
  assert.doesNotMatch(
    r.stderr,
    /\/mode/,
    "a declined call is not a mode problem",
  );
  await assert.rejects(
    Deno.lstat(`${dir.path}/ws/a.txt`),
    Deno.errors.NotFound,
  );
});

Deno.test("approval: unrecognised answers are bounded and the give-up is said", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/ws`);
  const r = await chat(
    dir.path,
    [writeCall("a.txt", "x\n")],
    ["maybe", "perhaps", "?", "later", "hm"],
  );
  assert.equal(r.code, 4, r.stderr);
  assert.equal(r.stderr.split("is not an answer. Please").length, 5);
  assert.match(
    r.stderr,
    /"hm" is not an answer either; taken as no after 5 tries\n/,
  );
  await assert.rejects(
    Deno.lstat(`${dir.path}/ws/a.txt`),
    Deno.errors.NotFound,
  );
});
