/**
 * One writer per session through the CLI: while one `chat-resume`
 * process has a session open, a second is refused (exit 2, naming the
 * holder and how to go on) and writes nothing; readers never wait; after
 * the first ends, the session resumes again.
 */
import assert from "node:assert/strict";
import { openSqliteStore } from "../../../store/sqlite_store.ts";
import { spawnCli } from "../_child.ts";
import {
  parseEvents,
  runCli,
  tempDir,
  textCassette,
  write,
} from "../_helpers.ts";

function userTexts(home: string, id: string): string[] {
  const store = openSqliteStore(`${home}/history.db`);
  try {
    return (store.load(id)?.messages ?? []).flatMap((m) =>
      m.role === "user" && m.content[0]?.type === "text"
        ? [m.content[0].text]
        : []
    );
  } finally {
    store.close();
  }
}

Deno.test("chat-resume: a second writer on an open session exits 2 naming the holder; nothing interleaves", async () => {
  await using dir = await tempDir();
  const home = `${dir.path}/home`;
  const env = { RELAVIUM_HOME: home, NO_COLOR: "1" };
  await write(`${dir.path}/c.json`, textCassette("anthropic", ["One."]));
  const chat = await runCli(["chat", "--json", "--fixture", "c.json"], {
    env,
    cwd: dir.path,
    stdin: "first\n",
  });
  assert.equal(chat.code, 0, chat.stderr);
  const id = parseEvents(chat.stdout)[0]?.sessionId ?? "";

  await write(`${dir.path}/a.json`, textCassette("anthropic", ["A1.", "A2."]));
  await using a = spawnCli(
    ["chat-resume", id, "--fixture", "a.json", "--json"],
    { cwd: dir.path, env },
  );
  await a.send("from A 1");
  const done = await a.readUntil((l) =>
    l.startsWith('{"type":"session:turn_completed"')
  );
  if (done === undefined) assert.fail((await a.finished()).stderr);

  await write(`${dir.path}/b.json`, textCassette("anthropic", ["B."]));
  const b = await runCli(
    ["chat-resume", id, "--fixture", "b.json", "--json"],
    { env, cwd: dir.path, stdin: "from B\n" },
  );
  assert.equal(b.code, 2, b.stderr);
  assert.equal(b.stdout, "");
  const refusal = JSON.parse(b.stderr);
  assert.equal(refusal.code, "session_busy");
  assert.match(
    refusal.message,
    new RegExp(
      `^Session ${id} is open in another writer \\(process ${a.pid}( on host "[^"]+")?, since 20\\d\\d-[^)]+\\): close that chat first, or, if it is gone, wait a minute for its lease to expire and try again$`,
    ),
  );
  // Readers do not wait for the writer.
  const shown = await runCli(["chat-show", id], { env, cwd: dir.path });
  assert.equal(shown.code, 0, shown.stderr);
  const listed = await runCli(["chat-list"], { env, cwd: dir.path });
  assert.equal(listed.code, 0, listed.stderr);

  await a.send("from A 2");
  const end = await a.finished();
  assert.equal(end.code, 0, end.stderr);
  assert.deepEqual(userTexts(home, id), ["first", "from A 1", "from A 2"]);

  const again = await runCli(
    ["chat-resume", id, "--fixture", "b.json", "--json"],
    { env, cwd: dir.path, stdin: "from B\n" },
  );
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(userTexts(home, id), [
    "first",
    "from A 1",
    "from A 2",
    "from B",
  ]);
});
