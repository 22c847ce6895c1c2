import assert from "node:assert/strict";
import { createSseParser, type SseEvent } from "../../../llm/sse.ts";
import { fixture } from "./_server.ts";

const enc = new TextEncoder();

/** Feeds `bytes` cut at the given offsets and returns every event. */
function parseCuts(bytes: Uint8Array, cuts: number[]): SseEvent[] {
  const p = createSseParser();
  const out: SseEvent[] = [];
  let from = 0;
  for (const at of [...cuts, bytes.length]) {
    const r = p.push(bytes.subarray(from, at));
    assert.ok(r.ok);
    out.push(...r.value);
    from = at;
  }
  const end = p.end();
  assert.ok(end.ok);
  return [...out, ...end.value];
}

function parse(text: string): SseEvent[] {
  return parseCuts(enc.encode(text), []);
}

Deno.test("createSseParser() gives the same events however the bytes are split", () => {
  const text =
    "event: a\r\ndata: é😊\r\ndata: two\r\n\r\n: comment\n\nevent: b\rdata: x\r\rdata:y\n\n";
  const bytes = enc.encode(text);
  const whole = parseCuts(bytes, []);
  assert.deepEqual(whole, [
    { event: "a", data: "é😊\ntwo" },
    { event: "b", data: "x" },
    { event: "message", data: "y" },
  ]);
  for (let i = 1; i < bytes.length; i++) {
    assert.deepEqual(parseCuts(bytes, [i]), whole, `cut at ${i}`);
  }
  const everyByte = Array.from({ length: bytes.length - 1 }, (_, i) => i + 1);
  assert.deepEqual(parseCuts(bytes, everyByte), whole);
});

Deno.test("createSseParser() parses the recorded fixtures split at every byte", () => {
  for (
    const [provider, name] of [["anthropic", "thinking_signature.sse"], [
      "openai",
      "deepseek_tool_call.sse",
    ], ["anthropic", "text.sse"]] as const
  ) {
    const bytes = fixture(provider, name);
    const whole = parseCuts(bytes, []);
    assert.ok(whole.length > 5);
    for (const data of whole.map((e) => e.data)) {
      if (data !== "[DONE]") JSON.parse(data);
    }
    const everyByte = Array.from({ length: bytes.length - 1 }, (_, i) => i + 1);
    assert.deepEqual(parseCuts(bytes, everyByte), whole, name);
  }
});

Deno.test("createSseParser() follows the field rules", async (t) => {
  await t.step("one leading space is dropped, not two", () => {
    assert.deepEqual(parse("data:  x\n\n"), [{ event: "message", data: " x" }]);
  });
  await t.step(
    "an event without data is not dispatched and resets the name",
    () => {
      assert.deepEqual(parse("event: a\n\ndata: x\n\n"), [{
        event: "message",
        data: "x",
      }]);
    },
  );
  await t.step("empty data lines still count", () => {
    assert.deepEqual(parse("data\ndata:\n\n"), [{
      event: "message",
      data: "\n",
    }]);
  });
  await t.step("unknown fields, retry and stray lines are ignored", () => {
    assert.deepEqual(parse("foo: bar\nretry: 10\ngarbage\ndata: x\n\n"), [{
      event: "message",
      data: "x",
    }]);
  });
  await t.step("the last id is carried", () => {
    assert.deepEqual(parse("id: 7\ndata: x\n\ndata: y\n\n"), [
      { event: "message", data: "x", id: "7" },
      { event: "message", data: "y", id: "7" },
    ]);
  });
  await t.step("a leading BOM is dropped", () => {
    assert.deepEqual(
      parseCuts(
        new Uint8Array([0xef, 0xbb, 0xbf, ...enc.encode("data: x\n\n")]),
        [1, 2],
      ),
      [{ event: "message", data: "x" }],
    );
  });
  await t.step("an unterminated event at the end is dropped", () => {
    assert.deepEqual(parse("data: x\n\ndata: y\n"), [{
      event: "message",
      data: "x",
    }]);
  });
  await t.step(
    "a CR at the end of a read followed by LF is one line break",
    () => {
      assert.deepEqual(
        parseCuts(enc.encode("event: a\r\ndata: x\r\n\r\n"), [9, 17]),
        [{ event: "a", data: "x" }],
      );
    },
  );
});

Deno.test("createSseParser() refuses a line or an event past its bound and stays failed", () => {
  const p = createSseParser({ maxLineLength: 16 });
  assert.deepEqual(p.push(enc.encode("data: 0123456789")), {
    ok: true,
    value: [],
  });
  assert.deepEqual(p.push(enc.encode("abc")), {
    ok: false,
    error: { kind: "line_too_long", limit: 16 },
  });
  assert.equal(p.push(enc.encode("\n\n")).ok, false);
  assert.equal(p.end().ok, false);
  const q = createSseParser({ maxEventLength: 10 });
  assert.deepEqual(q.push(enc.encode("data: 12345\ndata: 67890\n")), {
    ok: false,
    error: { kind: "event_too_large", limit: 10 },
  });
  const complete = createSseParser({ maxLineLength: 8 });
  assert.equal(complete.push(enc.encode("data: 123456789\n")).ok, false);
  assert.throws(() => createSseParser({ maxLineLength: 0 }), RangeError);
});
