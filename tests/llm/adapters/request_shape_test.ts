/**
 * Request shaping from the catalog's capability flags, one row per flag:
 * the body a loopback server receives (or the local refusal when the API
 * would refuse the request).
 */
import assert from "node:assert/strict";
import { anthropicAt, openaiAt } from "./_adapters.ts";
import type { LlmRequest, StreamChunk } from "../../../llm/mod.ts";
import { collect, serve, sse } from "./_server.ts";

const enc = new TextEncoder();
const TOOLS = [{
  name: "read_file",
  description: "Read a file",
  parameters: { type: "object", properties: {} },
}];

type Shape = Partial<LlmRequest> & { model: string };

/**
 * `openai` is the official endpoint (a reasoning model goes to the
 * Responses API); `gateway` a Chat Completions endpoint of its own,
 * declared to reason.
 */
async function sent(
  kind: "anthropic" | "openai" | "gateway",
  req: Shape,
): Promise<{ body?: Record<string, unknown>; chunks: StreamChunk[] }> {
  const server = serve([
    sse(enc.encode(
      kind === "anthropic"
        ? "event: message_stop\ndata: {}\n\n"
        : "data: [DONE]\n\n",
    )),
  ]);
  try {
    const provider = kind === "anthropic"
      ? anthropicAt(server.url)
      : kind === "openai"
      ? openaiAt(server.url)
      : openaiAt(server.url, {
        id: "gateway",
        customEndpoint: true,
        supports: { reasoning: true },
      });
    const chunks = await collect(provider.stream({
      messages: [{ role: "user", content: [{ type: "text", text: "q" }] }],
      ...req,
    } as LlmRequest, "k"));
    const raw = server.requests[0]?.body;
    return raw === undefined ? { chunks } : { body: JSON.parse(raw), chunks };
  } finally {
    await server.close();
  }
}

Deno.test("request shape: Claude models that reject sampling parameters get no temperature; others do", async () => {
  assert.equal(
    (await sent("anthropic", { model: "claude-sonnet-5", temperature: 0.5 }))
      .body?.["temperature"],
    undefined,
  );
  assert.equal(
    (await sent("anthropic", { model: "claude-sonnet-4-6", temperature: 0.5 }))
      .body?.["temperature"],
    0.5,
  );
});

Deno.test("request shape: effort off never sends thinking disabled to a model whose thinking cannot be disabled", async () => {
  const never = (await sent("anthropic", {
    model: "claude-fable-5",
    reasoningEffort: "off",
  })).body;
  assert.equal(never?.["thinking"], undefined);
  assert.deepEqual(never?.["output_config"], { effort: "low" });
  const can = (await sent("anthropic", {
    model: "claude-sonnet-4-6",
    reasoningEffort: "off",
  })).body;
  assert.deepEqual(can?.["thinking"], { type: "disabled" });
});

Deno.test("request shape: effort max stays max on a model that lists it; adaptive thinking where only adaptive is taken", async () => {
  const body = (await sent("anthropic", {
    model: "claude-opus-4-6",
    reasoningEffort: "max",
  })).body;
  assert.deepEqual(body?.["output_config"], { effort: "max" });
  assert.deepEqual(body?.["thinking"], { type: "adaptive" });
});

Deno.test("request shape: the default max_tokens leaves room for the answer on top of the thinking budget", async () => {
  const plain = (await sent("anthropic", { model: "claude-sonnet-4-6" })).body;
  assert.ok(Number(plain?.["max_tokens"]) >= 32_000);
  const thinking = (await sent("anthropic", {
    model: "claude-opus-4-5",
    reasoningEffort: "high",
  })).body;
  const budget = (thinking?.["thinking"] as { budget_tokens: number })
    .budget_tokens;
  assert.ok(budget > 0);
  assert.ok(
    Number(thinking?.["max_tokens"]) - budget >= 32_000,
    "an answer's worth of tokens on top of the budget",
  );
});

Deno.test("request shape: Chat Completions never sends tools together with a reasoning effort the model refuses with them", async () => {
  const withEffort = (await sent("gateway", {
    model: "gpt-5.4",
    reasoningEffort: "high",
    tools: TOOLS,
  })).body;
  assert.equal(withEffort?.["reasoning_effort"], "none");
  const byDefault = (await sent("gateway", {
    model: "gpt-5.6-luna",
    tools: TOOLS,
  })).body;
  assert.equal(byDefault?.["reasoning_effort"], "none");
});

Deno.test("request shape: on a Chat Completions endpoint of its own, a model whose tool calls need the Responses API is refused locally, nothing sent", async () => {
  const server = serve([sse(enc.encode("data: [DONE]\n\n"))]);
  try {
    const provider = openaiAt(server.url, {
      id: "gateway",
      customEndpoint: true,
    });
    const chunks = await collect(provider.stream({
      model: "gpt-6.1-sol",
      tools: TOOLS,
      messages: [{ role: "user", content: [{ type: "text", text: "q" }] }],
    } as LlmRequest, "k"));
    assert.equal(server.requests.length, 0);
    const last = chunks.at(-1);
    assert.ok(last?.type === "error");
    assert.equal(last.error.kind, "bad_request");
    assert.match(last.error.message, /kind = "openai-responses"/);
  } finally {
    await server.close();
  }
  // The official endpoint sends it to /responses instead.
  const official = await sent("openai", { model: "gpt-6.1-sol", tools: TOOLS });
  assert.equal(official.body?.["store"], false);
  assert.ok(Array.isArray(official.body?.["input"]));
});

Deno.test("request shape: temperature is not sent beside a reasoning effort other than none", async () => {
  const high = (await sent("gateway", {
    model: "gpt-5.4",
    reasoningEffort: "high",
    temperature: 0.3,
  })).body;
  assert.equal(high?.["temperature"], undefined);
  assert.equal(high?.["reasoning_effort"], "high");
  const off = (await sent("gateway", {
    model: "gpt-5.4",
    reasoningEffort: "off",
    temperature: 0.3,
  })).body;
  assert.equal(off?.["temperature"], 0.3);
  assert.equal(off?.["reasoning_effort"], "none");
});
