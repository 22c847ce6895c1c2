/**
 * `/model` on a pseudo-terminal: bare, it names the model; with an id,
 * the same session goes on as a new instance on that model (the loopback
 * provider sees the new model, the session id stays, the mode is back to
 * ask); piped, it only says it needs a terminal.
 */
import assert from "node:assert/strict";
import { spawnPty } from "../_pty.ts";
import { chatProvider, chatSetup } from "../_pty_chat.ts";
import { runCli, tempDir } from "../_helpers.ts";
import { within } from "../../llm/adapters/_server.ts";

Deno.test("chat on a terminal: /model shows the model, /model <id> <provider> continues the same session on it", async () => {
  await using dir = await tempDir();
  await using provider = chatProvider([{ deltas: ["first answer"] }]);
  const home = `${dir.path}/home`;
  const { args, env } = await chatSetup(dir.path, home, provider);
  await using chat = spawnPty([...args, "--mode", "accept-edits"], {
    cwd: dir.path,
    env,
  });
  await chat.waitFor("accept-edits > ");
  await chat.type("one\r");
  let at = await chat.waitFor("first answer");
  at = await chat.waitFor("> ", at);
  await chat.type("/model\r");
  at = await chat.waitFor("Model: qwen2.5:7b (fake-openai)", at);
  await chat.type("/model llama3.3:70b fake-openai\r");
  at = await chat.waitFor("Switching session", at);
  at = await chat.waitFor("Resumed session", at);
  at = await chat.waitFor("mode ask", at);
  at = await chat.waitFor("\n> ", at);
  await chat.type("two\r");
  await within(provider.arrived(2), 20_000, "the second request");
  at = await chat.waitFor("first answer", at);
  await chat.type("\x04");
  assert.equal(await chat.waitExit(), 4);
  assert.deepEqual(provider.userTexts(), ["one", "two"]);
  assert.deepEqual(provider.models(), ["qwen2.5:7b", "llama3.3:70b"]);
  const list = await runCli(["chat-list", "--json"], {
    env: { RELAVIUM_HOME: home, NO_COLOR: "1" },
    cwd: dir.path,
  });
  const rows = list.stdout.trim().split("\n").map((l) => JSON.parse(l));
  assert.equal(rows.length, 1, "one session, continued");
  assert.equal(rows[0].turns, 2);
  // The listing names the model the session last ran on.
  assert.equal(rows[0].modelId, "llama3.3:70b");
});

Deno.test("chat piped: /model names the model, /model <id> needs a terminal", async () => {
  await using dir = await tempDir();
  await using provider = chatProvider([{ deltas: ["ok"] }]);
  const { args, env } = await chatSetup(dir.path, `${dir.path}/home`, provider);
  const r = await runCli(args, {
    env,
    cwd: dir.path,
    stdin: "/model\n/model gpt-5.4\n",
  });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /Model: qwen2\.5:7b \(fake-openai\)/);
  assert.match(
    r.stderr,
    /\/model <id> switches models only in an interactive chat/,
  );
  assert.deepEqual(provider.userTexts(), []);
});
