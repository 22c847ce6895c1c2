/**
 * The chat line editor's pure parts: terminal bytes to keys (sequences
 * and pastes split across reads), edits on the line, the history file's
 * bound and mode, and `@` completion inside the workspace.
 */
import assert from "node:assert/strict";
import {
  type Key,
  KeyDecoder,
  type KeyName,
} from "../../../../cli/chat/editor/keys.ts";
import {
  applyEdit,
  lineAtEnd,
  moveLine,
} from "../../../../cli/chat/editor/line_state.ts";
import {
  HISTORY_LIMIT,
  openInputHistory,
} from "../../../../cli/chat/editor/history.ts";
import {
  applyCompletion,
  createPathCompleter,
  typedAtPath,
} from "../../../../cli/chat/editor/complete.ts";
import { tempDir, write } from "../../_helpers.ts";

function decode(reads: string[]): Key[] {
  const decoder = new KeyDecoder();
  const encoder = new TextEncoder();
  return reads.flatMap((r) => decoder.feed(encoder.encode(r)));
}

Deno.test("KeyDecoder.feed() turns reads into keys", async (t) => {
  const key = (name: string) => ({ type: "key", name });
  const cases: Array<[string, string[], unknown[]]> = [
    ["text and a control key", ["ab\x01"], [
      { type: "text", text: "ab" },
      key("home"),
    ]],
    ["an arrow split over reads", ["\x1b[", "D"], [key("left")]],
    ["Ctrl-Left moves by word", ["\x1b[1;5D"], [key("word-left")]],
    ["Delete and End", ["\x1b[3~\x1b[F"], [key("delete"), key("end")]],
    ["Alt-Enter is a new line", ["\x1b\r"], [key("newline")]],
    ["a lone Esc", ["\x1b"], [key("escape")]],
    ["an unknown sequence is dropped", ["\x1b[99Zx"], [
      { type: "text", text: "x" },
    ]],
    ["a paste split over reads, end marker split too", [
      "\x1b[200~one\r\ntw",
      "o\x1b[20",
      "1~\r",
    ], [{ type: "paste", text: "one\r\ntwo" }, key("enter")]],
  ];
  for (const [name, reads, keys] of cases) {
    await t.step(name, () => assert.deepEqual(decode(reads), keys));
  }
});

Deno.test("applyEdit() and moveLine() edit by character, word and line", async (t) => {
  const cases: Array<[string, string, number, KeyName, number]> = [
    // name, text, cursor, key, → text|cursor
    ["backspace keeps a surrogate pair whole", "a😀", 3, "backspace", 1],
    ["kill-word", "one two", 7, "kill-word", 4],
    ["kill-start stops at the line start", "a\nbc", 4, "kill-start", 2],
    ["kill-end stops at the line end", "ab\ncd", 1, "kill-end", 1],
    ["home on the second line", "ab\ncd", 5, "home", 3],
  ];
  for (const [name, text, cursor, key, expected] of cases) {
    await t.step(name, () => {
      const out = applyEdit({ text, cursor }, key);
      assert.equal(out?.cursor, expected);
    });
  }
  assert.equal(applyEdit(lineAtEnd("one two"), "kill-word")?.text, "one ");
  assert.equal(applyEdit(lineAtEnd("x"), "enter"), undefined);
  assert.deepEqual(moveLine({ text: "abc\nd", cursor: 5 }, -1), {
    text: "abc\nd",
    cursor: 1,
  });
  assert.equal(moveLine(lineAtEnd("one line"), -1), undefined);
});

Deno.test("openInputHistory() keeps the newest entries in a 0600 file, multi-line ones whole", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/chat_history`;
  const lines = Array.from(
    { length: HISTORY_LIMIT + 5 },
    (_, i) => JSON.stringify(`m${i}`),
  );
  await write(path, `${lines.join("\n")}\nnot json\n`);
  const history = await openInputHistory(path);
  assert.equal(history.entries.length, HISTORY_LIMIT);
  assert.equal(history.entries[0], "m5");
  await history.add("two\nlines");
  await history.add("two\nlines");
  const again = await openInputHistory(path);
  assert.equal(again.entries.at(-1), "two\nlines");
  assert.equal(again.entries.at(-2), `m${HISTORY_LIMIT + 4}`);
  assert.equal(((await Deno.stat(path)).mode ?? 0) & 0o777, 0o600);
});

Deno.test("createPathCompleter() completes inside the workspace only", async () => {
  await using dir = await tempDir();
  await write(`${dir.path}/ws/notes.md`, "x");
  await write(`${dir.path}/ws/sub/nested.txt`, "x");
  await write(`${dir.path}/ws/.hidden`, "x");
  await write(`${dir.path}/outside.txt`, "x");
  await Deno.symlink(`${dir.path}/outside.txt`, `${dir.path}/ws/link.txt`);
  const complete = createPathCompleter(`${dir.path}/ws`);
  assert.deepEqual(await complete(""), ["notes.md", "sub/"]);
  assert.deepEqual(await complete("sub/n"), ["sub/nested.txt"]);
  assert.deepEqual(await complete("."), [".hidden"]);
  assert.deepEqual(await complete("../"), []);
  assert.deepEqual(await complete(`${dir.path}/`), []);
  const state = lineAtEnd("see @no");
  const partial = typedAtPath(state);
  assert.equal(partial, "no");
  assert.equal(
    applyCompletion(state, "no", await complete("no")).text,
    "see @notes.md ",
  );
});
