import assert from "node:assert/strict";
import {
  createScriptedProvider,
  type LlmRequest,
  type StreamChunk,
} from "../../llm/mod.ts";
import { textReply } from "./_helpers.ts";

async function drain(it: AsyncIterable<StreamChunk>): Promise<StreamChunk[]> {
  const out: StreamChunk[] = [];
  for await (const c of it) out.push(c);
  return out;
}

Deno.test("createScriptedProvider() replays entries in order and records deep copies", async () => {
  const p = createScriptedProvider({
    id: "openai",
    script: [textReply("one"), (req) => textReply(`model=${req.model}`)],
  });
  const req: LlmRequest = {
    model: "m1",
    messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
    signal: new AbortController().signal,
  };
  assert.deepEqual(await drain(p.stream(req, "k1")), textReply("one"));
  req.model = "m2";
  req.messages[0]?.content.push({ type: "text", text: "mutated later" });
  assert.deepEqual(await drain(p.stream(req, "k2")), textReply("model=m2"));
  assert.equal(p.calls, 2);
  assert.deepEqual(p.keys, ["k1", "k2"]);
  assert.equal(p.requests[0]?.model, "m1");
  assert.equal(p.requests[0]?.messages[0]?.content.length, 1);
  assert.equal("signal" in (p.requests[0] ?? {}), false);
});

Deno.test("createScriptedProvider() fails loudly on an extra call", async () => {
  const p = createScriptedProvider({ id: "x", script: [textReply("only")] });
  await drain(p.stream({ model: "m", messages: [] }, "k"));
  const extra = await drain(p.stream({ model: "m", messages: [] }, "k"));
  assert.deepEqual(extra, [{
    type: "error",
    error: {
      kind: "unknown",
      retryable: false,
      provider: "x",
      message: "unexpected stream call #2 (only 1 scripted)",
    },
  }]);
});

Deno.test("createScriptedProvider() stops yielding when the request aborts", async () => {
  const p = createScriptedProvider({ script: [textReply("a")] });
  const ac = new AbortController();
  const seen: StreamChunk[] = [];
  for await (
    const c of p.stream({ model: "m", messages: [], signal: ac.signal }, "k")
  ) {
    seen.push(c);
    ac.abort();
  }
  assert.equal(seen.length, 1);
});

Deno.test("createScriptedProvider() reports capabilities and window", () => {
  const p = createScriptedProvider({
    script: [],
    supports: { reasoning: true },
    contextWindow: 8000,
    kind: "anthropic",
  });
  assert.equal(p.id, "scripted");
  assert.equal(p.kind, "anthropic");
  assert.equal(p.customEndpoint, false);
  assert.deepEqual(p.supports, {
    tools: true,
    streaming: true,
    parallelToolCalls: false,
    reasoning: true,
    promptCache: false,
  });
  assert.equal(p.contextLimit?.("any"), 8000);
});
