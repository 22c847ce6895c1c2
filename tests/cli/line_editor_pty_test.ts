/**
 * The interactive chat's line editor, driven on a real pseudo-terminal
 * (tests/_kit/pty_run.py) against a loopback provider that records each
 * request's user text.
 */
import assert from "node:assert/strict";
import { spawnPty } from "../_kit/pty.ts";
import { chatProvider, chatSetup } from "./_pty_chat.ts";
import { tempDir } from "./_helpers.ts";

Deno.test("chat on a terminal: an edited line arrives as edited, and Up recalls it in a later chat from the 0600 history file", async () => {
  await using dir = await tempDir();
  await using provider = chatProvider([{ first: "Hello there." }]);
  const home = `${dir.path}/home`;
  const { args, env } = await chatSetup(dir.path, home, provider);
  {
    await using chat = spawnPty(args, { cwd: dir.path, env });
    const at = await chat.waitFor("> ");
    // Left ×3, insert; Ctrl-A, insert; Ctrl-E, type, Ctrl-W; Ctrl-U on a
    // second line is not reached: the first Enter submits.
    await chat.type("hello wrld\x1b[D\x1b[D\x1b[Do\x01say \x05 again\x17\r");
    await provider.arrived(1);
    await chat.waitFor("Hello there.", at);
    await chat.waitFor("> ", chat.text().lastIndexOf("Hello there."));
    await chat.type("\x04");
    assert.equal(await chat.waitExit(), 4);
  }
  assert.deepEqual(provider.userTexts(), ["say hello world "]);
  const info = await Deno.stat(`${home}/chat_history`);
  assert.equal((info.mode ?? 0) & 0o777, 0o600);
  {
    await using chat = spawnPty(args, { cwd: dir.path, env });
    await chat.waitFor("> ");
    await chat.type("\x1b[A\r");
    await provider.arrived(2);
    await chat.waitFor("> ", chat.text().lastIndexOf("Hello there."));
    await chat.type("\x04");
    assert.equal(await chat.waitExit(), 4);
  }
  assert.deepEqual(provider.userTexts(), [
    "say hello world ",
    "say hello world ",
  ]);
});

Deno.test("chat on a terminal: a 3-line bracketed paste is one request, a 5,000-character line arrives whole, Ctrl-C clears a half-typed line", async () => {
  await using dir = await tempDir();
  await using provider = chatProvider([{ first: "Noted." }]);
  const { args, env } = await chatSetup(dir.path, `${dir.path}/home`, provider);
  await using chat = spawnPty(args, { cwd: dir.path, env });
  await chat.waitFor("> ");
  await chat.type("\x1b[200~line one\nline two\nline three\x1b[201~\r");
  await provider.arrived(1);
  let at = await chat.waitFor("Noted.");
  await chat.waitFor("> ", at);
  const long = "x".repeat(4_999) + "y";
  await chat.type(`${long}\r`);
  await provider.arrived(2);
  at = await chat.waitFor("Noted.", at);
  await chat.waitFor("> ", at);
  await chat.type("half typed\x03");
  await chat.waitFor("^C", at);
  await chat.type("real\r");
  await provider.arrived(3);
  at = await chat.waitFor("Noted.", at);
  await chat.waitFor("> ", at);
  await chat.type("\x03");
  await chat.waitFor("Ctrl-C again", at);
  await chat.type("\x03");
  assert.equal(await chat.waitExit(), 4);
  assert.deepEqual(provider.userTexts(), [
    "line one\nline two\nline three",
    long,
    "real",
  ]);
});

Deno.test("chat on a terminal: type-ahead stays out of the answer and pre-fills the next prompt; /cancel mid-turn ends at once", async () => {
  await using dir = await tempDir();
  await using provider = chatProvider([
    { first: "Thinking", rest: " done.", hold: true },
    { first: "Second", hold: true },
  ]);
  const { args, env } = await chatSetup(dir.path, `${dir.path}/home`, provider);
  await using chat = spawnPty(args, { cwd: dir.path, env });
  await chat.waitFor("> ");
  await chat.type("go\r");
  const thinking = await chat.waitFor("Thinking");
  await chat.type("typed ahead");
  // The keys are read (held) before the answer goes on.
  await chat.type("\x1b[1;5D");
  provider.release();
  const done = await chat.waitFor("done.", thinking);
  assert.ok(!chat.text().slice(thinking, done).includes("typed ahead"));
  await chat.waitFor("> typed ahead", done);
  await chat.type("\r");
  await provider.arrived(2);
  await chat.waitFor("Second", done);
  await chat.type("/cancel\r");
  assert.equal(await chat.waitExit(), 4);
  await provider.cancelled;
  assert.deepEqual(provider.userTexts(), ["go", "typed ahead"]);
});
