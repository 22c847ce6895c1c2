/**
 * Finding and resuming a chat: one turn count (completed turns) in
 * chat-list, chat-show and the resume banner; `--last` passes over a
 * session with no completed turn; a title loses the frame of an `@`
 * mention; and on a real pseudo-terminal a resumed chat shows its last
 * exchanges, bounded, before the prompt.
 */
import assert from "node:assert/strict";
import { createBufferedIo } from "../../../cli/io/io.ts";
import { main } from "../../../cli/main.ts";
import { spawnPty } from "../_pty.ts";
import { chatProvider, chatSetup } from "../_pty_chat.ts";
import {
  authErrorCassette,
  lineStdin,
  runCli,
  tempDir,
  textCassette,
  write,
} from "../_helpers.ts";
import { turnsCassette } from "./_turns_cassette.ts";

Deno.test("chat-list, chat-show and the resume banner count the same turns (completed ones)", async () => {
  await using dir = await tempDir();
  const env = { RELAVIUM_HOME: `${dir.path}/home`, NO_COLOR: "1" };
  await write(`${dir.path}/c.json`, turnsCassette(["One.", null, "Three."]));
  const chat = await runCli(["chat", "--fixture", "c.json"], {
    env,
    cwd: dir.path,
    stdin: "a\nb\nc\n",
  });
  assert.equal(chat.code, 1, chat.stderr);
  const list = await runCli(["chat-list", "--json"], { env, cwd: dir.path });
  const record = JSON.parse(list.stdout.trim());
  assert.equal(record.turns, 2);
  const show = await runCli(["chat-show", record.sessionId], {
    env,
    cwd: dir.path,
  });
  assert.match(show.stdout, /Totals: 2 turns,/);
  await write(`${dir.path}/r.json`, textCassette("anthropic", []));
  const resumed = await runCli(
    ["chat-resume", record.sessionId, "--fixture", "r.json"],
    { env, cwd: dir.path, stdin: "" },
  );
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.match(resumed.stderr, /: 2 prior turns, mode ask\./);
});

Deno.test("chat-resume --last passes over a newer session whose only turn failed", async () => {
  await using dir = await tempDir();
  const env = { RELAVIUM_HOME: `${dir.path}/home`, NO_COLOR: "1" };
  await write(`${dir.path}/ok.json`, textCassette("anthropic", ["Fine."]));
  const good = await runCli(["chat", "--fixture", "ok.json", "--json"], {
    env,
    cwd: dir.path,
    stdin: "hello\n",
  });
  assert.equal(good.code, 0, good.stderr);
  const goodId = JSON.parse(good.stdout.split("\n")[0] ?? "{}").sessionId;
  await write(`${dir.path}/fail.json`, authErrorCassette("anthropic"));
  const failed = await runCli(["chat", "--fixture", "fail.json"], {
    env,
    cwd: dir.path,
    stdin: "hello?\n",
  });
  assert.equal(failed.code, 1, failed.stderr);
  // Listed (it reached the provider), with 0 turns.
  const list = await runCli(["chat-list", "--json"], { env, cwd: dir.path });
  const turns = list.stdout.trim().split("\n").map((l) => JSON.parse(l).turns);
  assert.deepEqual(turns, [0, 1]);
  await write(`${dir.path}/r.json`, textCassette("anthropic", []));
  const last = await runCli(["chat-resume", "--last", "--fixture", "r.json"], {
    env,
    cwd: dir.path,
    stdin: "",
  });
  assert.equal(last.code, 0, last.stderr);
  assert.match(last.stderr, new RegExp(`^Resumed session ${goodId} `, "m"));
});

Deno.test("chat-list: a title loses the frame of an @ mention", async () => {
  await using dir = await tempDir();
  const env = { RELAVIUM_HOME: `${dir.path}/home`, NO_COLOR: "1" };
  await write(`${dir.path}/a.md`, "alpha\n");
  await write(`${dir.path}/c.json`, textCassette("anthropic", ["Read."]));
  const b = createBufferedIo({
    env,
    cwd: dir.path,
    stdin: lineStdin(["see @a.md"]),
    stdinIsTerminal: true,
    stdoutIsTerminal: true,
  });
  assert.equal(await main(["chat", "--fixture", "c.json"], b.io), 4);
  const list = await runCli(["chat-list", "--json"], { env, cwd: dir.path });
  assert.equal(JSON.parse(list.stdout.trim()).title, "see @a.md");
  const human = await runCli(["chat-list"], { env, cwd: dir.path });
  assert.match(human.stdout, /"see @a\.md"\n$/);
  assert.doesNotMatch(human.stdout, /file id/);
});

Deno.test("chat-resume on a terminal prints the last two exchanges, bounded, before the prompt", async () => {
  await using dir = await tempDir();
  const long = Array.from({ length: 30 }, (_, i) => `Line ${i + 1}.`).join(
    "\n",
  );
  await using provider = chatProvider([
    { deltas: ["First answer."] },
    { deltas: ["Second answer."] },
    { deltas: [long] },
    { deltas: ["Fourth."] },
  ]);
  const { args, env } = await chatSetup(
    dir.path,
    `${dir.path}/home`,
    provider,
  );
  {
    await using chat = spawnPty(args, { cwd: dir.path, env });
    let at = await chat.waitFor("> ");
    for (
      const [q, a] of [["one", "First answer."], ["two", "Second answer."]]
    ) {
      await chat.type(`question ${q}\r`);
      at = await chat.waitFor(a ?? "", at);
      at = await chat.waitFor("> ", at);
    }
    await chat.type("question three\r");
    at = await chat.waitFor("Line 30.", at);
    await chat.waitFor("> ", at);
    await chat.type("\x04");
    assert.equal(await chat.waitExit(), 4);
  }
  await using resumed = spawnPty(["chat-resume", "--last"], {
    cwd: dir.path,
    env,
  });
  let at = await resumed.waitFor("3 prior turns");
  at = await resumed.waitFor(
    "Earlier in this chat (the last 2 of 3 turns):",
    at,
  );
  const recapStart = at;
  at = await resumed.waitFor("you: question two", at);
  at = await resumed.waitFor("Second answer.", at);
  at = await resumed.waitFor("you: question three", at);
  at = await resumed.waitFor("Line 6. …", at);
  await resumed.waitFor("\n> ", at);
  const recap = resumed.text().slice(recapStart);
  assert.doesNotMatch(
    recap,
    /question one|Line 7\./,
    "bounded to the last two",
  );
  await resumed.type("\x04");
  assert.equal(await resumed.waitExit(), 4);
});
