import assert from "node:assert/strict";
import type { WorkingMessage } from "../../../schema/resume.ts";
import {
  estimateProjection,
  frozenText,
  projectHistory,
  renderSummaryBlock,
} from "../../../session/window/projection.ts";

const user = (text: string): WorkingMessage => ({
  role: "user",
  content: [{ type: "text", text }],
});
const assistant = (text: string): WorkingMessage => ({
  role: "assistant",
  content: [{ type: "text", text }],
});
const texts = (ms: ReturnType<typeof projectHistory>) =>
  ms.map((m) =>
    `${m.role}:${
      m.content.map((p) => p.type === "text" ? p.text : "").join("|")
    }`
  );

Deno.test("projection is extended as the transcript grows, merging a reply-less turn into the next user message", () => {
  const messages: WorkingMessage[] = [
    user("one"),
    assistant("a1"),
    user("two"),
  ];
  const spans = [{ start: 0, end: 2 }, { start: 2, end: 3 }];
  const first = projectHistory({ messages, spans, pending: "three" });
  assert.deepEqual(texts(first), [
    "user:one",
    "assistant:a1",
    "user:two\n\nthree",
  ]);
  messages.push(user("three"), assistant("a3"));
  spans.push({ start: 3, end: 5 });
  const second = projectHistory({ messages, spans, pending: "four" });
  assert.deepEqual(texts(second), [
    "user:one",
    "assistant:a1",
    "user:two\n\nthree",
    "assistant:a3",
    "user:four",
  ]);
  assert.deepEqual(
    texts(first),
    ["user:one", "assistant:a1", "user:two\n\nthree"],
    "an earlier request's array is its own",
  );
  assert.notEqual(first, second);
  assert.equal(first[0], second[0], "history messages are shared, not copied");
  assert.ok(Object.isFrozen(second[0]) && Object.isFrozen(second[0]?.content));
});

Deno.test("the summary block goes into a new first message; the shared one is untouched", () => {
  const messages: WorkingMessage[] = [user("kept"), assistant("reply")];
  const spans = [{ start: 0, end: 2 }];
  const plain = projectHistory({ messages, spans });
  const summarised = projectHistory({ messages, spans, summary: "S" });
  assert.equal(summarised[0]?.content.length, 2);
  assert.match(texts(summarised)[0] ?? "", /S/);
  assert.deepEqual(texts(projectHistory({ messages, spans })), texts(plain));
});

Deno.test("a new transcript array (after a trim or compaction) is projected afresh", () => {
  const a: WorkingMessage[] = [user("x"), assistant("y")];
  projectHistory({ messages: a, spans: [{ start: 0, end: 2 }] });
  const b: WorkingMessage[] = [user("z")];
  assert.deepEqual(
    texts(projectHistory({ messages: b, spans: [{ start: 0, end: 1 }] })),
    ["user:z"],
  );
});

Deno.test("the kept count of a growing transcript equals a fresh count at every step", () => {
  const messages: WorkingMessage[] = [];
  const spans: { start: number; end: number }[] = [];
  const texts = ["one", "a1", "two", "", "three", "a3 longer reply"];
  for (let i = 0; i < texts.length; i += 2) {
    const start = messages.length;
    messages.push(user(texts[i] ?? ""));
    if (texts[i + 1] !== "") messages.push(assistant(texts[i + 1] ?? ""));
    spans.push({ start, end: messages.length });
    for (const pending of [undefined, "next"]) {
      const kept = estimateProjection({
        messages,
        spans,
        system: "sys",
        summary: "S",
        ...(pending === undefined ? {} : { pending }),
      });
      const fresh = estimateProjection({
        messages: [...messages],
        spans,
        system: "sys",
        summary: "S",
        ...(pending === undefined ? {} : { pending }),
      });
      assert.equal(kept, fresh, `after ${messages.length} messages`);
    }
  }
});

Deno.test("the summary block and the pending user combine in every shape of kept projection, and the kept one is never changed", () => {
  const cases: Array<{ messages: WorkingMessage[]; want: string[] }> = [
    { messages: [], want: ["user:B|p"] },
    { messages: [user("u")], want: ["user:B|u\n\np"] },
    { messages: [assistant("a")], want: ["user:B", "assistant:a", "user:p"] },
    {
      messages: [user("u"), assistant("a")],
      want: ["user:B|u", "assistant:a", "user:p"],
    },
    {
      messages: [user("u"), assistant("a"), user("v")],
      want: ["user:B|u", "assistant:a", "user:v\n\np"],
    },
  ];
  for (const { messages, want } of cases) {
    const spans = messages.map((_, i) => ({ start: i, end: i + 1 }));
    const plain = texts(projectHistory({ messages, spans }));
    const got = projectHistory({
      messages,
      spans,
      summary: "S",
      pending: "p",
    });
    const block = renderSummaryBlock("S");
    assert.deepEqual(texts(got).map((t) => t.replace(block, "B")), want);
    assert.deepEqual(texts(projectHistory({ messages, spans })), plain);
  }
});

Deno.test("a frozen one-part transcript message is projected as itself; a mutable one is copied", () => {
  const shared = frozenText("user", "one");
  const mutable = assistant("a1");
  const messages: WorkingMessage[] = [shared, mutable];
  const spans = [{ start: 0, end: 2 }];
  const out = projectHistory({ messages, spans, pending: "two" });
  assert.equal(out[0], shared);
  assert.notEqual(out[1], mutable);
  assert.ok(Object.isFrozen(out[1]) && Object.isFrozen(out[1]?.content));
  assert.deepEqual(texts(out), ["user:one", "assistant:a1", "user:two"]);
});

Deno.test("a request array past 16,384 messages has exactly the projected messages, and a push lands at its end", () => {
  const messages: WorkingMessage[] = [];
  const spans = [];
  for (let i = 0; i < 8_500; i++) {
    spans.push({ start: messages.length, end: messages.length + 2 });
    messages.push(
      frozenText("user", `q${i}`),
      frozenText("assistant", `a${i}`),
    );
  }
  const out = projectHistory({ messages, spans, pending: "next" });
  assert.equal(out.length, 17_001);
  let same = 0;
  for (let i = 0; i < 17_000; i++) if (out[i] === messages[i]) same++;
  assert.equal(same, 17_000);
  assert.deepEqual(texts(out.slice(-1)), ["user:next"]);
  out.push(frozenText("user", "x"));
  assert.equal(out.length, 17_002);
  assert.equal(
    projectHistory({ messages, spans, pending: "next" }).length,
    17_001,
  );
});
