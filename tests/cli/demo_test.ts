/** `deno task demo` (demo/run.ts), run in-process into a temp RELAVIUM_HOME. */
import assert from "node:assert/strict";
import { createBufferedIo } from "../../cli/io/io.ts";
import { runDemo } from "../../demo/run.ts";
import { parseEvents, signature, tempDir } from "./_helpers.ts";

Deno.test("runDemo() chats through the bundled cassette, then lists and shows the session", async () => {
  await using dir = await tempDir();
  const home = `${dir.path}/home`;
  const out = createBufferedIo();
  const r = await runDemo({
    home,
    stdout: out.io.stdout,
    stderr: out.io.stderr,
  });
  assert.deepEqual(
    { chat: r.chat, list: r.list, show: r.show },
    { chat: 0, list: 0, show: 0 },
    out.stderrText(),
  );
  const id = r.sessionId ?? "";
  assert.match(id, /^[0-9a-f-]{36}$/);
  const stdout = out.stdoutText();
  assert.match(
    stdout,
    new RegExp(
      `^${
        id.slice(0, 8)
      } {2}just now {2}2 turns {2}\\S+ {2}demo-helper {2}"What files are in this folder\\?"$`,
      "m",
    ),
    "chat-list lists the session",
  );
  assert.match(stdout, /\ntools: list_directory\nassistant: There is one file/);
  assert.match(stdout, /\ntools: read_file\nassistant: It says the store/);
  assert.match(stdout, /Totals: 2 turns, /);
  const stderr = out.stderrText();
  assert.match(stderr, /\[tool: list_directory\]\n\[tool: read_file\]\n/);
  assert.doesNotMatch(stderr, /error/);
  assert.ok((await Deno.stat(`${home}/history.db`)).isFile);
});

Deno.test("runDemo({ json: true }) prints the chat as a strict event stream", async () => {
  await using dir = await tempDir();
  const out = createBufferedIo();
  const r = await runDemo({
    home: dir.path,
    stdout: out.io.stdout,
    stderr: out.io.stderr,
    json: true,
  });
  assert.equal(r.chat, 0);
  const stream = out.stdoutText().split(/\n(?=[0-9a-f]{8} )/)[0] ?? "";
  assert.deepEqual(signature(parseEvents(`${stream.trimEnd()}\n`)), [
    "session:started",
    "session:turn_started",
    "agent:token",
    "cost:updated",
    "agent:tool_call:list_directory",
    "agent:tool_result:list_directory",
    "agent:token",
    "agent:token",
    "cost:updated",
    "session:turn_completed",
    "session:turn_started",
    "cost:updated",
    "agent:tool_call:read_file",
    "agent:tool_result:read_file",
    "agent:token",
    "agent:token",
    "cost:updated",
    "session:turn_completed",
    "session:cancelled",
  ]);
});
