/**
 * The pure half of `!` and `@`: the tokeniser, markers,
 * nonces, attribute sanitising, content bounds and framing.
 */
import assert from "node:assert/strict";
import {
  boundContent,
  CONTENT_MAX_CHARS,
  fileMarkers,
  frameCommand,
  frameFile,
  newNonce,
  sanitizeAttr,
  tokenizeCommand,
} from "../../../cli/chat/inject.ts";

Deno.test("tokenizeCommand() splits on whitespace, groups quotes, expands nothing", () => {
  const rows: [string, string[]][] = [
    ["git status", ["git", "status"]],
    ["  git\tstatus\r\n", ["git", "status"]],
    [`echo "a b" 'c d'`, ["echo", "a b", "c d"]],
    [`echo "it's"`, ["echo", "it's"]],
    [`echo 'say "hi"'`, ["echo", 'say "hi"']],
    [`echo a"b c"d`, ["echo", "ab cd"]],
    [`echo ""`, ["echo", ""]],
    [`echo "unterminated run`, ["echo", "unterminated run"]],
    [`echo \\"x\\"`, ["echo", "\\x\\"]],
    ["git; rm -rf x", ["git;", "rm", "-rf", "x"]],
    ["ls | wc && echo $HOME ~ *.ts", [
      "ls",
      "|",
      "wc",
      "&&",
      "echo",
      "$HOME",
      "~",
      "*.ts",
    ]],
    ["", []],
    [" \t ", []],
  ];
  for (const [line, want] of rows) {
    assert.deepEqual(tokenizeCommand(line), want, JSON.stringify(line));
  }
});

Deno.test("fileMarkers() finds @paths at word boundaries only", () => {
  const rows: [string, string[]][] = [
    ["@a.md", ["a.md"]],
    ["read @src/x.ts and @b.md.", ["src/x.ts", "b.md"]],
    ["(see @a.md)", ["a.md"]],
    ["(@a.md) and [@b.md]", ["a.md", "b.md"]],
    ["x.@a.md", []],
    ["see @a.md)", ["a.md"]],
    ["mail me at a@b.com", []],
    ["@a.md @a.md", ["a.md"]],
    ["just @ alone", []],
    ["tab\t@t.txt", ["t.txt"]],
  ];
  for (const [line, want] of rows) {
    assert.deepEqual(fileMarkers(line), want, line);
  }
});

Deno.test("newNonce() is 32 lowercase hex from 16 random bytes, fresh per call", () => {
  let n = 0;
  const random = (len: number): Uint8Array =>
    new Uint8Array(len).map((_, i) => (i * 17 + n++) & 0xff);
  const a = newNonce(random);
  const b = newNonce(random);
  assert.match(a, /^[0-9a-f]{32}$/);
  assert.notEqual(a, b);
  assert.throws(() => newNonce(() => new Uint8Array(8)), RangeError);
  const real = newNonce((len) => crypto.getRandomValues(new Uint8Array(len)));
  assert.match(real, /^[0-9a-f]{32}$/);
});

Deno.test('sanitizeAttr() removes C0, DEL, C1, bidi controls and < > "', () => {
  const bad = [
    "\u0000",
    "\u001f",
    "\u007f",
    "\u0080",
    "\u009f",
    "\u200e",
    "\u200f",
    "\u061c",
    "\u202a",
    "\u202e",
    "\u2066",
    "\u2069",
    "<",
    ">",
    '"',
  ];
  for (const c of bad) {
    assert.equal(sanitizeAttr(`a${c}b`), "ab", JSON.stringify(c));
  }
  assert.equal(sanitizeAttr("src/é 'x'&.ts"), "src/é 'x'&.ts");
});

Deno.test("boundContent() cuts characters (75/25, surrogate-safe), then lines (300/100)", async (t) => {
  await t.step("within bounds: unchanged", () => {
    const text = "x".repeat(CONTENT_MAX_CHARS);
    assert.equal(boundContent(text), text);
  });
  await t.step("over the character bound", () => {
    const text = "a".repeat(100_000) + "b".repeat(100_000);
    const out = boundContent(text);
    const marker = "\n… [truncated 68928 of 200000 chars] …\n";
    assert.ok(out.startsWith("a".repeat(98_304) + marker));
    assert.ok(out.endsWith(marker + "b".repeat(32_768)));
    assert.equal(out.length, 98_304 + marker.length + 32_768);
  });
  await t.step("never splits a surrogate pair", () => {
    const pair = "😀";
    const text = pair.repeat(80_000); // 160,000 code units
    const out = boundContent(text);
    const [head = "", tail = ""] = out.split(
      /\n… \[truncated \d+ of \d+ chars\] …\n/,
    );
    assert.equal(head.length % 2, 0);
    assert.equal(tail.length % 2, 0);
    assert.ok([...head, ...tail].every((c) => c === pair));
  });
  await t.step("over the line bound", () => {
    const text = Array.from({ length: 1000 }, (_, i) => `${i}`).join("\n");
    const lines = boundContent(text).split("\n");
    assert.equal(lines.length, 401);
    assert.equal(lines[299], "299");
    assert.equal(lines[300], "… [truncated 600 lines] …");
    assert.equal(lines[301], "900");
  });
});

Deno.test("frameFile() and frameCommand() put the nonce on open and close tags", () => {
  const nonce = "0123456789abcdef0123456789abcdef";
  assert.equal(
    frameFile(nonce, 'a"<b>.md', "body </file:guess>"),
    `<file id="${nonce}" path="ab.md">\nbody </file:guess>\n</file:${nonce}>`,
  );
  assert.equal(
    frameCommand(nonce, {
      cmd: "echo hi",
      exitCode: 0,
      stdout: "hi\n",
      stderr: "",
    }),
    `<command id="${nonce}" cmd="echo hi" exit="0">\nhi\n\n</command:${nonce}>`,
  );
  assert.equal(
    frameCommand(nonce, { cmd: "x", exitCode: 3, stdout: "o", stderr: "e" }),
    `<command id="${nonce}" cmd="x" exit="3">\no\n[stderr]\ne\n</command:${nonce}>`,
  );
});
