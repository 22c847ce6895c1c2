import assert from "node:assert/strict";
import type { LlmMessage, LlmRequest } from "../../../llm/mod.ts";
import { createAnthropicProvider } from "../../../llm/anthropic/provider.ts";
import {
  MAX_CACHE_BREAKPOINTS,
  withCacheBreakpoints,
} from "../../../llm/anthropic/_cache_control.ts";
import { ask, collect, fixture, serve, sse, terminal } from "./_server.ts";

const EPHEMERAL = { type: "ephemeral" };
type Json = Record<string, unknown>;

/** Every `cache_control` value in a body, wherever it sits. */
function markers(value: unknown): unknown[] {
  if (Array.isArray(value)) return value.flatMap(markers);
  if (typeof value !== "object" || value === null) return [];
  const o = value as Json;
  return [
    ...(o["cache_control"] === undefined ? [] : [o["cache_control"]]),
    ...Object.entries(o).flatMap(([k, v]) =>
      k === "cache_control" ? [] : markers(v)
    ),
  ];
}

const TOOLS = [
  { name: "read_file", input_schema: { type: "object" } },
  { name: "write_file", input_schema: { type: "object" } },
];

function text(t: string): Json {
  return { type: "text", text: t };
}

Deno.test("withCacheBreakpoints() places the four breakpoints", async (t) => {
  await t.step("last tool, system, last two messages", () => {
    const body = {
      model: "m",
      system: "Be brief.",
      tools: TOOLS,
      messages: [
        { role: "user", content: [text("one")] },
        { role: "assistant", content: [text("two")] },
        { role: "user", content: [text("three")] },
      ],
      stream: true,
    };
    const out = withCacheBreakpoints(body, "5m");
    assert.deepEqual(out, {
      model: "m",
      system: [{ type: "text", text: "Be brief.", cache_control: EPHEMERAL }],
      tools: [TOOLS[0], { ...TOOLS[1], cache_control: EPHEMERAL }],
      messages: [
        { role: "user", content: [text("one")] },
        {
          role: "assistant",
          content: [{ ...text("two"), cache_control: EPHEMERAL }],
        },
        {
          role: "user",
          content: [{ ...text("three"), cache_control: EPHEMERAL }],
        },
      ],
      stream: true,
    });
    // The body as built is left as it was.
    assert.equal(body.system, "Be brief.");
    assert.deepEqual(markers(body), []);
  });

  await t.step("1h markers carry the ttl", () => {
    const out = withCacheBreakpoints({
      system: "S",
      messages: [{ role: "user", content: [text("hi")] }],
    }, "1h");
    assert.deepEqual(markers(out), [
      { type: "ephemeral", ttl: "1h" },
      { type: "ephemeral", ttl: "1h" },
    ]);
  });

  await t.step("caching off returns the body unchanged", () => {
    const body = { system: "S", messages: [] };
    assert.equal(withCacheBreakpoints(body, undefined), body);
  });
});

Deno.test("withCacheBreakpoints() skips what is absent", async (t) => {
  await t.step("no tools (empty list) and no system prompt", () => {
    const out = withCacheBreakpoints({
      tools: [],
      messages: [{ role: "user", content: [text("hi")] }],
    }, "5m");
    assert.deepEqual(out, {
      tools: [],
      messages: [{
        role: "user",
        content: [{ ...text("hi"), cache_control: EPHEMERAL }],
      }],
    });
  });

  await t.step("a single message gets one breakpoint", () => {
    const out = withCacheBreakpoints({
      system: "S",
      tools: TOOLS,
      messages: [{ role: "user", content: [text("a"), text("b")] }],
    }, "5m");
    assert.equal(markers(out).length, 3);
    const [m] = out["messages"] as Json[];
    assert.deepEqual(m?.["content"], [
      text("a"),
      { ...text("b"), cache_control: EPHEMERAL },
    ]);
  });

  await t.step("a tool_result as the last block is marked", () => {
    const result = { type: "tool_result", tool_use_id: "t1", content: "ok" };
    const use = { type: "tool_use", id: "t1", name: "read_file", input: {} };
    const out = withCacheBreakpoints({
      messages: [
        { role: "user", content: [text("read it")] },
        { role: "assistant", content: [text("Sure."), use] },
        { role: "user", content: [result] },
      ],
    }, "5m");
    const [first, second, third] = out["messages"] as Json[];
    assert.deepEqual(first?.["content"], [text("read it")]);
    assert.deepEqual(second?.["content"], [text("Sure."), {
      ...use,
      cache_control: EPHEMERAL,
    }]);
    assert.deepEqual(third?.["content"], [{
      ...result,
      cache_control: EPHEMERAL,
    }]);
  });

  await t.step("thinking and empty text are never marked", () => {
    const thinking = { type: "thinking", thinking: "…", signature: "sig" };
    const out = withCacheBreakpoints({
      system: "",
      messages: [
        { role: "assistant", content: [thinking] },
        { role: "user", content: [text("go"), text("")] },
      ],
    }, "5m");
    assert.equal(out["system"], "");
    const [first, second] = out["messages"] as Json[];
    assert.deepEqual(first?.["content"], [thinking]);
    assert.deepEqual(second?.["content"], [
      { ...text("go"), cache_control: EPHEMERAL },
      text(""),
    ]);
  });

  await t.step("no messages field leaves the rest marked", () => {
    const out = withCacheBreakpoints({ system: "S" }, "5m");
    assert.deepEqual(out, {
      system: [{ ...text("S"), cache_control: EPHEMERAL }],
    });
  });
});

Deno.test("withCacheBreakpoints() never exceeds the limit of four", async (t) => {
  const long = Array.from({ length: 6 }, (_, i) => ({
    role: i % 2 === 0 ? "user" : "assistant",
    content: [text(`m${i}`)],
  }));

  await t.step("a long conversation still gets exactly four", () => {
    const out = withCacheBreakpoints({
      system: "S",
      tools: TOOLS,
      messages: long,
    }, "5m");
    assert.equal(markers(out).length, MAX_CACHE_BREAKPOINTS);
    const msgs = out["messages"] as Json[];
    assert.deepEqual(
      msgs.map((m) => markers(m).length),
      [0, 0, 0, 0, 1, 1],
    );
  });

  await t.step("markers already in the body count against the limit", () => {
    const out = withCacheBreakpoints({
      cache_control: EPHEMERAL,
      system: [{ ...text("S"), cache_control: EPHEMERAL }],
      tools: TOOLS,
      messages: long,
    }, "5m");
    assert.equal(markers(out).length, MAX_CACHE_BREAKPOINTS);
    // The tools and the last message come first; the system keeps its own.
    const tools = out["tools"] as Json[];
    assert.deepEqual(tools[1]?.["cache_control"], EPHEMERAL);
    const msgs = out["messages"] as Json[];
    assert.deepEqual(msgs.map((m) => markers(m).length), [0, 0, 0, 0, 0, 1]);
  });

  await t.step("a body already at the limit is sent as it is", () => {
    const full = Array.from({ length: 4 }, (_, i) => ({
      role: i % 2 === 0 ? "user" : "assistant",
      content: [{ ...text(`m${i}`), cache_control: EPHEMERAL }],
    }));
    const body = { system: "S", tools: TOOLS, messages: full };
    const out = withCacheBreakpoints(body, "5m");
    assert.deepEqual(out, body);
  });
});

const REQUEST_TOOLS: LlmRequest["tools"] = [
  { name: "read_file", description: "Read", parameters: { type: "object" } },
];

async function sentBody(
  req: LlmRequest,
  options: { promptCaching?: boolean | "5m" | "1h" } = {},
): Promise<Json> {
  const server = serve([sse(fixture("anthropic", "text.sse"))]);
  try {
    const provider = createAnthropicProvider({
      fetch,
      baseUrl: server.url,
      customEndpoint: false,
      ...options,
    });
    const chunks = await collect(provider.stream(req, "k"));
    assert.equal(terminal(chunks).type, "stop");
    const [r] = server.requests;
    assert.ok(r !== undefined);
    return JSON.parse(r.body);
  } finally {
    await server.close();
  }
}

Deno.test("createAnthropicProvider() caches by default and not when promptCaching is false", async () => {
  const messages: LlmMessage[] = [
    { role: "user", content: [{ type: "text", text: "Read a.txt" }] },
    {
      role: "assistant",
      content: [{ type: "tool_call", id: "t1", name: "read_file", args: {} }],
    },
    {
      role: "tool",
      content: [{ type: "tool_result", toolCallId: "t1", result: "text" }],
    },
  ];
  const req: LlmRequest = {
    ...ask("claude-sonnet-4-6"),
    system: "Be brief.",
    messages,
    tools: REQUEST_TOOLS,
  };
  const on = await sentBody(req);
  assert.deepEqual(on["system"], [{
    type: "text",
    text: "Be brief.",
    cache_control: EPHEMERAL,
  }]);
  assert.deepEqual((on["tools"] as Json[])[0]?.["cache_control"], EPHEMERAL);
  const msgs = on["messages"] as Json[];
  assert.deepEqual(msgs.map((m) => markers(m).length), [0, 1, 1]);
  assert.equal(markers(on).length, 4);

  const hour = await sentBody(req, { promptCaching: "1h" });
  assert.deepEqual(
    markers(hour),
    Array(4).fill({ type: "ephemeral", ttl: "1h" }),
  );

  const off = await sentBody(req, { promptCaching: false });
  assert.deepEqual(markers(off), []);
  assert.equal(off["system"], "Be brief.");
});

Deno.test("createAnthropicProvider() counts a caller's top-level cache_control within the four", async () => {
  const req: LlmRequest = {
    ...ask("claude-sonnet-4-6"),
    system: "S",
    tools: REQUEST_TOOLS,
    messages: [
      { role: "user", content: [{ type: "text", text: "a" }] },
      { role: "assistant", content: [{ type: "text", text: "b" }] },
      { role: "user", content: [{ type: "text", text: "c" }] },
    ],
    providerOptions: { cache_control: EPHEMERAL },
  };
  const body = await sentBody(req);
  assert.deepEqual(body["cache_control"], EPHEMERAL);
  assert.equal(markers(body).length, MAX_CACHE_BREAKPOINTS);
  const msgs = body["messages"] as Json[];
  assert.deepEqual(msgs.map((m) => markers(m).length), [0, 0, 1]);
});
