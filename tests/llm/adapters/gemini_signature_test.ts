/**
 * Gemini's thought signatures across the rounds of one turn, through the
 * real fallback chain and the session's response collector against
 * loopback servers: a call Gemini made unsigned (the second of parallel
 * calls) goes back unsigned; only a call another provider made, after a
 * fallback, carries Gemini's documented skip value.
 */
import assert from "node:assert/strict";
import type { LlmMessage, LlmRequest } from "../../../llm/mod.ts";
import { createChain, type PlanEntry } from "../../../llm/chain.ts";
import { createGeminiProvider } from "../../../llm/gemini/provider.ts";
import { createOpenAiProvider } from "../../../llm/openai/provider.ts";
import { ResponseCollector } from "../../../session/tool_calls.ts";
import { fixture, type Reply, serve, sse, type TestServer } from "./_server.ts";
import { chunk, MODEL, SIG_A, USAGE, wire } from "./_gemini_wire.ts";

const SKIP = "skip_thought_signature_validator";
const FAILING = (): Response =>
  new Response(
    JSON.stringify({ error: { message: "overloaded", type: "server_error" } }),
    { status: 503, headers: { "x-should-retry": "false" } },
  );

function gemini(server: TestServer) {
  return createGeminiProvider({
    fetch,
    baseUrl: `${server.url}/v1beta`,
    customEndpoint: false,
  });
}

/** Runs one round of the turn; returns the assistant message it made. */
async function round(
  chain: ReturnType<typeof createChain>,
  request: LlmRequest,
): Promise<{ message: LlmMessage; provider: string }> {
  const collector = new ResponseCollector();
  let provider = "";
  let n = 0;
  for await (const e of chain.stream(request, new AbortController().signal)) {
    if (++n > 500) throw new Error("the round did not end");
    if (e.type === "chunk") collector.add(e.chunk);
    if (e.type === "done") provider = e.provider;
    if (e.type === "failed") throw new Error(JSON.stringify(e.error));
  }
  return {
    message: { role: "assistant", content: collector.assistantContent() },
    provider,
  };
}

function results(message: LlmMessage): LlmMessage[] {
  return message.content.flatMap((p): LlmMessage[] =>
    p.type === "tool_call"
      ? [{
        role: "tool",
        content: [{ type: "tool_result", toolCallId: p.id, result: "ok" }],
      }]
      : []
  );
}

/** The `functionCall` parts of the last model content Gemini was sent. */
function sentCalls(server: TestServer): Record<string, unknown>[] {
  const body = JSON.parse(server.requests.at(-1)?.body ?? "{}");
  const contents: Array<{ role: string; parts: Record<string, unknown>[] }> =
    body.contents ?? [];
  const model = contents.findLast((c) => c.role === "model");
  return (model?.parts ?? []).filter((p) => p["functionCall"] !== undefined);
}

const ANSWER: Reply = sse(wire([
  chunk([{ text: "Done." }], { finishReason: "STOP", usage: USAGE }),
]));
const USER: LlmMessage = {
  role: "user",
  content: [{ type: "text", text: "Read both files." }],
};

Deno.test("B19: Gemini's own unsigned parallel call goes back unsigned; its signed call keeps its signature", async () => {
  const server = serve([
    sse(wire([
      chunk([
        {
          functionCall: { name: "read_file", args: { path: "a.txt" } },
          thoughtSignature: SIG_A,
        },
        // Parallel calls: Gemini signs only the first.
        { functionCall: { name: "read_file", args: { path: "b.txt" } } },
      ], { finishReason: "STOP", usage: USAGE }),
    ])),
    ANSWER,
  ]);
  try {
    const chain = createChain({
      plan: [{ provider: gemini(server), model: MODEL, maxAttempts: 1 }],
      keyFor: () => "k",
      sleep: () => Promise.resolve(),
    });
    const first = await round(chain, { model: MODEL, messages: [USER] });
    assert.equal(first.provider, "gemini");
    const second = await round(chain, {
      model: MODEL,
      messages: [USER, first.message, ...results(first.message)],
    });
    assert.equal(second.provider, "gemini");
    assert.deepEqual(sentCalls(server), [
      {
        functionCall: { name: "read_file", args: { path: "a.txt" } },
        thoughtSignature: SIG_A,
      },
      { functionCall: { name: "read_file", args: { path: "b.txt" } } },
    ]);
  } finally {
    await server.close();
  }
});

Deno.test("B19: after a fallback, the other provider's call carries the skip signature", async () => {
  const openai = serve([
    sse(fixture("openai", "tool_split_args.sse")),
    FAILING,
  ]);
  const server = serve([ANSWER]);
  try {
    const plan: PlanEntry[] = [
      {
        provider: createOpenAiProvider({
          id: "openai",
          fetch,
          baseUrl: openai.url,
          customEndpoint: false,
        }),
        model: "gpt-4.1",
        maxAttempts: 1,
      },
      { provider: gemini(server), model: MODEL, maxAttempts: 1 },
    ];
    const chain = createChain({
      plan,
      keyFor: () => "k",
      sleep: () => Promise.resolve(),
    });
    const first = await round(chain, { model: "gpt-4.1", messages: [USER] });
    assert.equal(first.provider, "openai");
    const second = await round(chain, {
      model: "gpt-4.1",
      messages: [USER, first.message, ...results(first.message)],
    });
    assert.equal(second.provider, "gemini");
    const calls = sentCalls(server);
    assert.equal(calls.length, 1);
    assert.equal(calls[0]?.["thoughtSignature"], SKIP);
  } finally {
    await Promise.all([openai.close(), server.close()]);
  }
});
