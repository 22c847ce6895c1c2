import assert from "node:assert/strict";
import {
  boundModelText,
  resultText,
  summarizeText,
} from "../../tools/bound.ts";

const enc = new TextEncoder();
const bytes = (s: string): number => enc.encode(s).length;

Deno.test("boundModelText() leaves text within both budgets unchanged", () => {
  const text = "a\n".repeat(4) + "b"; // 5 lines, 9 bytes
  assert.deepEqual(boundModelText(text, { maxBytes: 9, maxLines: 5 }), {
    text,
    truncated: false,
  });
});

Deno.test("boundModelText() cuts over the byte budget with head 70 / tail 30", () => {
  const text = "h".repeat(5000) + "t".repeat(5000);
  const out = boundModelText(text, { maxBytes: 2000, maxLines: 100 });
  assert.equal(out.truncated, true);
  assert.ok(bytes(out.text) <= 2000);
  assert.match(
    out.text,
    /^h+\n…\nt+\n\n\[… truncated: 10000 bytes \/ 1 lines; full output unavailable \(no output store\)\]$/,
  );
  const [head, rest] = out.text.split("\n…\n") as [string, string];
  const tail = rest.split("\n\n[…")[0] as string;
  assert.ok(head.length > tail.length * 2);
});

Deno.test("boundModelText() keeps floor((L-1)*0.7) head and the rest tail lines", () => {
  const lines = Array.from({ length: 50 }, (_, i) => `line${i}`);
  const out = boundModelText(lines.join("\n"), {
    maxBytes: 100_000,
    maxLines: 11,
  });
  const [head, rest] = out.text.split("\n…\n") as [string, string];
  const tail = rest.split("\n\n[…")[0] as string;
  assert.deepEqual(head.split("\n"), lines.slice(0, 7));
  assert.deepEqual(tail.split("\n"), lines.slice(47));
  assert.match(out.text, /truncated: \d+ bytes \/ 50 lines/);
});

Deno.test("boundModelText() cuts at code-point boundaries", () => {
  for (const ch of ["é", "€", "😀"]) {
    const text = ch.repeat(3000);
    const out = boundModelText(text, { maxBytes: 1001, maxLines: 10 });
    assert.ok(bytes(out.text) <= 1001, ch);
    assert.ok(!out.text.includes("\ufffd"), `no replacement char for ${ch}`);
    const [head, rest] = out.text.split("\n…\n") as [string, string];
    const tail = rest.split("\n\n[…")[0] as string;
    assert.ok([...head].every((c) => c === ch));
    assert.ok([...tail].every((c) => c === ch));
  }
});

Deno.test("boundModelText() handles a budget smaller than the notice", () => {
  const out = boundModelText("x".repeat(100), { maxBytes: 10, maxLines: 10 });
  assert.equal(out.truncated, true);
  assert.match(out.text, /^\n…\n\n\n\[… truncated/);
});

Deno.test("boundModelText() at exactly the limits is unchanged; one more byte cuts", () => {
  const text = "x".repeat(64);
  assert.equal(
    boundModelText(text, { maxBytes: 64, maxLines: 1 }).truncated,
    false,
  );
  assert.equal(
    boundModelText(text + "x", { maxBytes: 64, maxLines: 1 }).truncated,
    true,
  );
  assert.equal(
    boundModelText("a\nb", { maxBytes: 64, maxLines: 1 }).truncated,
    true,
  );
});

Deno.test("resultText() passes strings and JSON-encodes the rest", () => {
  assert.equal(resultText("s"), "s");
  assert.equal(resultText({ a: [1] }), '{"a":[1]}');
  assert.equal(resultText(undefined), "");
});

Deno.test("summarizeText() bounds, flattens and hides binary-looking runs", () => {
  assert.equal(summarizeText("a\tb\nc"), "a b c");
  const s = summarizeText("😀".repeat(400));
  assert.ok(s.length <= 500);
  assert.ok(!s.includes("\ufffd"));
  assert.equal(
    summarizeText(`data: ${"QUJD".repeat(100)}`),
    "data: [binary data]",
  );
});
