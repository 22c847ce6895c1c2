/**
 * A request is an immutable value: its messages and parts (a tool call's
 * arguments included) are frozen and shared with the transcript. A
 * provider that writes to one fails with a message naming the rule, not
 * `internal`; a provider that copies before editing works.
 */
import assert from "node:assert/strict";
import type { StreamChunk } from "../../llm/chunk.ts";
import type { LlmProvider, LlmRequest } from "../../llm/provider.ts";
import { createFakeRegistry } from "../_fakes/tools.ts";
import { harness, reply, toolCall } from "./_harness.ts";
import { fakeProvider } from "./_ctx.ts";

/** A provider that runs `touch` on each request, then plays its script. */
function touching(
  script: StreamChunk[][],
  touch: (request: LlmRequest, n: number) => void,
): LlmProvider & { seen: LlmRequest[] } {
  const seen: LlmRequest[] = [];
  return {
    ...fakeProvider(true),
    seen,
    async *stream(request) {
      seen.push(request);
      touch(request, seen.length);
      yield* script[seen.length - 1] ?? [];
    },
  };
}

const RULE =
  /wrote to its request: a request's messages and parts are frozen and shared with the transcript; a provider that must edit them copies first/;

Deno.test("sendMessage(): a provider's write to a frozen request part fails naming the rule", async (t) => {
  const rows: [string, (r: LlmRequest) => void][] = [
    ["a part's text", (r) => {
      const part = r.messages[0]?.content[0];
      if (part?.type === "text") part.text = "rewritten";
    }],
    ["a message's part list", (r) => {
      r.messages[0]?.content.push({ type: "text", text: "more" });
    }],
    ["a message's role", (r) => {
      const m = r.messages[0];
      if (m !== undefined) m.role = "assistant";
    }],
  ];
  for (const [label, write] of rows) {
    await t.step(label, async () => {
      const provider = touching([reply("never")], write);
      const h = harness({ script: [], provider });
      const result = await h.session.sendMessage("Hello");
      assert.equal(result.kind, "failed");
      if (result.kind !== "failed") return;
      assert.notEqual(result.error.code, "internal");
      assert.equal(result.error.code, "validation");
      assert.match(result.error.message, RULE);
      assert.equal(h.session.transcript.messages.length, 0);
    });
  }
});

Deno.test("sendMessage(): a tool call's arguments are frozen in the next request", async () => {
  const provider = touching(
    [toolCall("c1", "read_file", { path: "a.txt" }), reply("done")],
    (r, n) => {
      if (n !== 2) return;
      const call = r.messages[1]?.content[0];
      if (call?.type === "tool_call") {
        (call.args as Record<string, unknown>).path = "/etc/passwd";
      }
    },
  );
  const tools = createFakeRegistry({ read_file: () => "body" });
  const h = harness({ script: [], provider, tools });
  const result = await h.session.sendMessage("Read a.txt");
  assert.equal(result.kind, "failed");
  if (result.kind === "failed") assert.match(result.error.message, RULE);
  const call = provider.seen[1]?.messages[1]?.content[0];
  assert.deepEqual(call?.type === "tool_call" && call.args, { path: "a.txt" });
});

Deno.test("sendMessage(): a provider that copies before editing works, and the transcript keeps the original", async () => {
  const provider = touching([reply("Hi")], (r) => {
    const copy = structuredClone(r.messages);
    const part = copy[0]?.content[0];
    if (part?.type === "text") part.text = "edited copy";
  });
  const h = harness({ script: [], provider });
  const result = await h.session.sendMessage("Hello");
  assert.equal(result.kind, "completed");
  const first = h.session.transcript.messages[0]?.content[0];
  assert.equal(first?.type === "text" && first.text, "Hello");
});
