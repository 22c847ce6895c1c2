/**
 * Which API the built-in `openai` provider speaks per model, against a
 * loopback OpenAI platform that refuses function tools beside a reasoning
 * effort on Chat Completions for the GPT-5.x family, as OpenAI does: every
 * reasoning model goes to the Responses API with the effort asked for;
 * the others stay on Chat Completions. A Chat Completions endpoint of its
 * own that cannot carry an effort is named once in the registry's
 * notices.
 */
import assert from "node:assert/strict";
import type { LlmRequest } from "../../../llm/mod.ts";
import { createProviderRegistry } from "../../../llm/provider_registry.ts";
import { ask, collect, terminal, type TestServer, textOf } from "./_server.ts";
import { servePlatform, toolsWithEffortRefused } from "./_openai_platform.ts";

const KEY = "sk-proj-PLANTEDroute0123456789abcdefXYZ";
const OFFICIAL = "https://api.openai.com/v1";
const TOOLS = [{
  name: "read_file",
  description: "Read a file",
  parameters: { type: "object", properties: { path: { type: "string" } } },
}];

/**
 * The registry's built-in `openai` provider, its official endpoint
 * reached through a transport that forwards it to the loopback platform.
 */
function builtIn(server: TestServer) {
  const forward: typeof fetch = (input, init) => {
    const url = String(input);
    assert.ok(url.startsWith(OFFICIAL), url);
    return fetch(`${server.url}/v1${url.slice(OFFICIAL.length)}`, init);
  };
  const provider = createProviderRegistry().create("openai", {
    fetch: forward,
  });
  assert.ok(provider !== undefined);
  assert.equal(provider.customEndpoint, false);
  return provider;
}

function withTools(
  model: string,
  effort?: LlmRequest["reasoningEffort"],
): LlmRequest {
  return {
    ...ask(model),
    tools: TOOLS,
    ...(effort === undefined ? {} : { reasoningEffort: effort }),
  };
}

Deno.test("the platform refuses tools beside an effort on Chat Completions, as OpenAI does", async () => {
  const server = servePlatform();
  try {
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify({
        model: "gpt-5.4-mini",
        messages: [{ role: "user", content: "Hi" }],
        tools: [{ type: "function", function: TOOLS[0] }],
        reasoning_effort: "high",
      }),
    });
    assert.equal(res.status, 400);
    assert.equal(
      (await res.json()).error.message,
      toolsWithEffortRefused("gpt-5.4-mini"),
    );
  } finally {
    await server.close();
  }
});

Deno.test("B17: gpt-5.4-mini and gpt-5.4-nano with tools and an effort go to the Responses API and are answered", async () => {
  const server = servePlatform();
  try {
    const openai = builtIn(server);
    for (const model of ["gpt-5.4-mini", "gpt-5.4-nano"]) {
      const chunks = await collect(
        openai.stream(withTools(model, "high"), KEY),
      );
      const last = terminal(chunks);
      assert.equal(last.type, "stop", `${model}: ${JSON.stringify(last)}`);
      assert.ok(textOf(chunks).length > 0, model);
    }
    assert.deepEqual(server.requests.map((q) => q.path), [
      "/v1/responses",
      "/v1/responses",
    ]);
    for (const q of server.requests) {
      const body = JSON.parse(q.body);
      assert.deepEqual(body.reasoning, { effort: "high", summary: "auto" });
      assert.equal(body.tools[0].name, "read_file");
      assert.equal(body.store, false);
      assert.equal(q.headers.get("authorization"), `Bearer ${KEY}`);
    }
  } finally {
    await server.close();
  }
});

Deno.test("B18: the effort the agent set reaches the model with tools (high stays high), for the whole GPT-5.x family and the o-series", async () => {
  const server = servePlatform();
  try {
    const openai = builtIn(server);
    const cases: Array<[string, LlmRequest["reasoningEffort"], unknown]> = [
      ["gpt-5.4", "high", "high"],
      ["gpt-5.5", "medium", "medium"],
      ["gpt-5.6-terra", undefined, undefined],
      ["gpt-5.2", "low", "low"],
      ["o3", "high", "high"],
      // An id no catalog row lists, judged by its family.
      ["gpt-5.9-preview", "high", "high"],
    ];
    for (const [model, effort, wire] of cases) {
      const last = terminal(
        await collect(openai.stream(withTools(model, effort), KEY)),
      );
      assert.equal(last.type, "stop", `${model}: ${JSON.stringify(last)}`);
      const q = server.requests.at(-1);
      assert.equal(q?.path, "/v1/responses", model);
      assert.equal(JSON.parse(q.body).reasoning?.effort, wire, model);
    }
  } finally {
    await server.close();
  }
});

Deno.test("models that are not reasoning models stay on Chat Completions", async () => {
  const server = servePlatform();
  try {
    const openai = builtIn(server);
    for (const model of ["gpt-4.1", "gpt-4o-mini", "gpt-5-search-api"]) {
      const last = terminal(
        await collect(openai.stream(withTools(model), KEY)),
      );
      assert.equal(last.type, "stop", model);
    }
    assert.deepEqual(
      server.requests.map((q) => q.path),
      Array(3).fill("/v1/chat/completions"),
    );
  } finally {
    await server.close();
  }
});

Deno.test("a Chat Completions endpoint of its own sends none with tools, and the registry says so once", async () => {
  const server = servePlatform();
  try {
    const registry = createProviderRegistry([
      {
        id: "proxy",
        kind: "openai-compatible",
        baseUrl: `${server.url}/v1`,
        reasoning: true,
      },
      { id: "local", kind: "openai-compatible", baseUrl: `${server.url}/v1` },
    ]);
    const proxy = registry.create("proxy", { fetch });
    assert.ok(proxy !== undefined);
    const last = terminal(
      await collect(proxy.stream(withTools("gpt-5.4", "high"), KEY)),
    );
    assert.equal(last.type, "stop");
    const sent = JSON.parse(server.requests[0]?.body ?? "{}");
    assert.equal(server.requests[0]?.path, "/v1/chat/completions");
    assert.equal(sent.reasoning_effort, "none");

    const call = {
      provider: "proxy",
      model: "gpt-5.4",
      reasoningEffort: "high" as const,
      tools: true,
    };
    assert.deepEqual(registry.notices([call, call]), [
      'proxy: gpt-5.4 takes function tools on Chat Completions only with reasoning effort "none", which is sent instead of "high" (declare the endpoint with kind = "openai-responses" to carry the effort)',
    ]);
    // Without tools the effort goes as asked; off is none anyway.
    assert.deepEqual(registry.notices([{ ...call, tools: false }]), []);
    assert.deepEqual(
      registry.notices([{ ...call, reasoningEffort: "off" }]),
      [],
    );
    // An endpoint not declared to reason drops the effort: said too.
    assert.deepEqual(
      registry.notices([{ ...call, provider: "local", model: "qwen3" }]),
      [
        'local: reasoning effort "high" is not sent to qwen3 (a custom endpoint is not assumed to reason; declare reasoning = true to send it)',
      ],
    );
    // The built-in provider carries it through the Responses API.
    assert.deepEqual(
      registry.notices([{ ...call, provider: "openai" }]),
      [],
    );
  } finally {
    await server.close();
  }
});
