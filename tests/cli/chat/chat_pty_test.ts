/**
 * The interactive chat's line editor, driven on a real pseudo-terminal
 * (tests/_kit/pty_run.py, Python's standard `pty` module) against a
 * loopback provider that records each request's user text: what the
 * provider receives is the assertion, the screen only says when to type.
 */
import assert from "node:assert/strict";
import { spawnPty } from "../_pty.ts";
import { chatProvider, chatSetup } from "../_pty_chat.ts";
import { tempDir, trustProjectFiles, write } from "../_helpers.ts";
import { scanUntil } from "../_procs.ts";

const LEFT = "\x1b[D";
const HOME = "\x1b[H";
const END = "\x1b[F";
const DELETE = "\x1b[3~";
const UP = "\x1b[A";

Deno.test("chat on a terminal: editing keys shape the message, Tab completes an @ path, Up recalls messages in a resumed chat from the 0600 history file", async () => {
  await using dir = await tempDir();
  await using provider = chatProvider([{ deltas: ["Hello there."] }]);
  await write(`${dir.path}/notes.md`, "remember the milk\n");
  const home = `${dir.path}/home`;
  const { args, env } = await chatSetup(dir.path, home, provider);
  {
    await using chat = spawnPty(args, { cwd: dir.path, env });
    let at = await chat.waitFor("> ");
    // Left ×3 and insert; Ctrl-A and insert; Ctrl-E, type, Ctrl-W.
    await chat.type(`hello wrld${LEFT.repeat(3)}o\x01say \x05 again\x17\r`);
    at = await chat.waitFor("Hello there.", at);
    at = await chat.waitFor("> ", at);
    // Ctrl-U; Home and insert; End, Backspace; Left ×2, Delete; Ctrl-K;
    // Ctrl-L redraws (no form feed in the message).
    await chat.type(
      `junk\x15abc def${HOME}X${END}\x7f${LEFT.repeat(2)}${DELETE}\x0bok\x0c\r`,
    );
    at = await chat.waitFor("Hello there.", at);
    at = await chat.waitFor("> ", at);
    assert.ok(chat.raw().includes("\x1b[2J"), "Ctrl-L cleared the screen");
    await chat.type("read @no\t\r");
    at = await chat.waitFor("Hello there.", at);
    await chat.waitFor("> ", at);
    await chat.type("\x04");
    assert.equal(await chat.waitExit(), 4);
  }
  const [first, second, third] = provider.userTexts();
  assert.equal(first, "say hello world ");
  assert.equal(second, "Xabc ok");
  assert.ok(third?.startsWith("read @notes.md "), third);
  assert.ok(third?.includes("remember the milk"), third);
  const info = await Deno.stat(`${home}/chat_history`);
  assert.equal((info.mode ?? 0) & 0o777, 0o600);
  {
    // A resumed chat reads with the editor too.
    const resume = ["chat-resume", "--last"];
    await using chat = spawnPty(resume, { cwd: dir.path, env });
    const at = await chat.waitFor("> ");
    // The newest entry first: Up twice is the second message.
    await chat.type(`${UP}${UP}\r`);
    await provider.arrived(4);
    await chat.waitFor("> ", await chat.waitFor("Hello there.", at));
    await chat.type("\x04");
    assert.equal(await chat.waitExit(), 4);
  }
  assert.equal(provider.userTexts().length, 4);
  assert.equal(provider.userTexts()[3], "Xabc ok");
});

Deno.test("chat on a terminal: a 3-line bracketed paste is one request, a 5,000-character line arrives whole, Ctrl-J / Alt-Enter / a trailing backslash continue a message, Ctrl-C clears a half-typed line; the trust question takes an edited answer", async () => {
  await using dir = await tempDir();
  await using provider = chatProvider([{ deltas: ["Noted."] }]);
  const home = `${dir.path}/home`;
  const { args, env } = await chatSetup(dir.path, home, provider, false);
  await using chat = spawnPty(args, { cwd: dir.path, env });
  // The trust question reads its answer with the editor too: an edited
  // "y" trusts the file, so its loopback provider serves the chat.
  await chat.waitFor("[n] no");
  await chat.type("n\x7fy\r");
  let at = await chat.waitFor("> ");
  const turn = async (keys: string): Promise<void> => {
    await chat.type(keys);
    at = await chat.waitFor("Noted.", at);
    at = await chat.waitFor("> ", at);
  };
  await turn("\x1b[200~line one\nline two\r\nline three\x1b[201~\r");
  const long = "x".repeat(4_999) + "y";
  await turn(`${long}\r`);
  await turn("first\nsecond\x1b\rthird\\\rfourth\r");
  await chat.type("half typed\x03");
  at = await chat.waitFor("^C", at);
  await turn("real\r");
  await chat.type("\x03");
  await chat.waitFor("Ctrl-C again", at);
  await chat.type("\x03");
  assert.equal(await chat.waitExit(), 4);
  assert.deepEqual(provider.userTexts(), [
    "line one\nline two\nline three",
    long,
    "first\nsecond\nthird\nfourth",
    "real",
  ]);
});

Deno.test("chat on a terminal: type-ahead stays out of the answer and fills the next prompt; Ctrl-C or Esc aborts a turn and the chat goes on; /cancel mid-turn ends at once", async () => {
  await using dir = await tempDir();
  await using provider = chatProvider([
    { deltas: ["Thinking", "…"], hold: true, rest: [" done."] },
    { deltas: ["Slow", "…"], hold: true },
  ]);
  const { args, env } = await chatSetup(dir.path, `${dir.path}/home`, provider);
  await using chat = spawnPty(args, { cwd: dir.path, env });
  await chat.waitFor("> ");
  await chat.type("go\r");
  const thinking = await chat.waitFor("Thinking");
  await chat.type("typed ahead");
  // Typed while the answer streams: never echoed (the terminal is in
  // no-echo mode during a turn), drawn after the next prompt.
  provider.release();
  let at = await chat.waitFor("done.", thinking);
  assert.ok(!chat.text().slice(thinking, at).includes("typed"));
  at = await chat.waitFor("> typed ahead", at);
  await chat.type("\r");
  at = await chat.waitFor("Slow", at);
  await chat.type("\x03");
  await provider.cancelled(2);
  at = await chat.waitFor("> ", at);
  await chat.type("esc\r");
  at = await chat.waitFor("Slow", at);
  await chat.type("\x1b");
  await provider.cancelled(3);
  at = await chat.waitFor("> ", at);
  await chat.type("last\r");
  at = await chat.waitFor("Slow", at);
  await chat.type("/cancel\r");
  await provider.cancelled(4);
  assert.equal(await chat.waitExit(), 4);
  assert.deepEqual(provider.userTexts(), ["go", "typed ahead", "esc", "last"]);
});

Deno.test({
  name:
    "chat on a terminal: Ctrl-C during a run_command kills the command and the chat goes on",
  ignore: Deno.build.os !== "linux",
  async fn() {
    // A marker argument no other run (of this suite too) sleeps for; the
    // escaped dot keeps the pattern from matching the scan itself.
    const marker = `41.${100_000 + Math.floor(Math.random() * 800_000)}`;
    const pattern = marker.replace(".", "\\.");
    await using dir = await tempDir();
    await write(
      `${dir.path}/helper.agent.yaml`,
      "id: helper\nmodel: claude-haiku-4-5\nprovider: anthropic\nsystem_prompt: Help.\ntools:\n  - run_command\n",
    );
    const id = "t1";
    await write(
      `${dir.path}/c.json`,
      JSON.stringify({
        schema_version: "1.1",
        provider: "anthropic",
        calls: [{
          chunks: [
            { type: "tool_call_start", id, name: "run_command" },
            {
              type: "tool_call_delta",
              id,
              argsJsonDelta: JSON.stringify({
                command: "sleep",
                args: [marker],
              }),
            },
            { type: "tool_call_end", id },
            {
              type: "stop",
              stopReason: "tool_use",
              usage: { inputTokens: 10, outputTokens: 3 },
            },
          ],
        }],
      }),
    );
    await write(
      `${dir.path}/.relavium/project.toml`,
      `[chat]\nallowed_command_globs = ["sleep ${marker}"]\n`,
    );
    const env = { RELAVIUM_HOME: `${dir.path}/home`, NO_COLOR: "1" };
    await trustProjectFiles(dir.path, env);
    const args = "chat --agent helper.agent.yaml --fixture c.json --mode auto";
    await using chat = spawnPty(args.split(" "), { cwd: dir.path, env });
    const at = await chat.waitFor("> ");
    assert.deepEqual(await scanUntil(pattern, (p) => p.length === 0), []);
    await chat.type("run it\r");
    const running = await scanUntil(pattern, (p) => p.length > 0);
    assert.equal(running.length, 1, "the command did not start");
    await chat.type("\x03");
    // It would sleep 41 s; it is gone, and the prompt is back.
    assert.deepEqual(await scanUntil(pattern, (p) => p.length === 0), []);
    await chat.waitFor("> ", await chat.waitFor("run it", at));
    await chat.type("\x04");
    assert.equal(await chat.waitExit(), 4);
  },
});
