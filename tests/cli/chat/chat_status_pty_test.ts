/**
 * The live status line on a real pseudo-terminal (tests/_kit/pty_run.py)
 * against a loopback provider that stays silent until released: the
 * status is on screen while nothing streams, erased before the text, and
 * the prompt names a mode other than the default.
 */
import assert from "node:assert/strict";
import { spawnPty } from "../_pty.ts";
import { chatProvider, chatSetup } from "../_pty_chat.ts";
import { tempDir } from "../_helpers.ts";

const CLEAR = "\r\x1b[2K";

Deno.test("chat on a terminal: a status is on screen while the provider is silent and erased before its text; the prompt names the mode", async () => {
  await using dir = await tempDir();
  await using provider = chatProvider([
    { deltas: [], hold: true, rest: ["Hello", " there."] },
  ]);
  const { args, env } = await chatSetup(dir.path, `${dir.path}/home`, provider);
  await using chat = spawnPty([...args, "--mode", "accept-edits"], {
    cwd: dir.path,
    env,
  });
  let at = await chat.waitFor("accept-edits > ");
  await chat.type("hi\r");
  await provider.arrived(1);
  at = await chat.waitFor(
    /Waiting for qwen2\.5:7b · \d+\.\ds · Ctrl-C to stop/,
    at,
  );
  provider.release();
  at = await chat.waitFor("Hello there.", at);
  await chat.waitFor("accept-edits > ", at);
  const raw = chat.raw();
  const text = raw.indexOf("Hello");
  const lastStatus = raw.lastIndexOf("Waiting for", text);
  const cleared = raw.indexOf(CLEAR, lastStatus);
  assert.ok(
    lastStatus >= 0 && cleared > lastStatus && cleared < text,
    "the status is erased before the text",
  );
  await chat.type("\x04");
  assert.equal(await chat.waitExit(), 4);
  assert.deepEqual(provider.userTexts(), ["hi"]);
});
