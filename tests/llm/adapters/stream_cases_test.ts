/**
 * Wire-stream cases of both adapters, as a table: a documented SSE stream
 * served by a loopback server (7-byte writes) ⇒ the chunks, the usage and
 * the stop reason or error kind. The cases are the ones a real server was
 * seen to send: a spliced `message_start`, redacted thinking, cache writes
 * by TTL, index-less and id-less tool calls, a legacy `function_call`,
 * Gemini's thought signature on the compatible route, a stream without
 * usage.
 */
import assert from "node:assert/strict";
import { anthropicAt, openaiAt } from "./_adapters.ts";
import type { LlmRequest, StreamChunk } from "../../../llm/mod.ts";
import { ask, collect, serve, sse, terminal, textOf } from "./_server.ts";

const enc = new TextEncoder();
const KEY = "sk-ant-api03-PLANTEDkey0123456789abcdefXYZ";

function events(list: ReadonlyArray<[string, unknown]>): Uint8Array {
  return enc.encode(
    list.map(([e, d]) => `event: ${e}\ndata: ${JSON.stringify(d)}\n\n`).join(
      "",
    ),
  );
}

function chat(list: readonly unknown[], done = true): Uint8Array {
  return enc.encode(
    list.map((d) => `data: ${JSON.stringify(d)}\n\n`).join("") +
      (done ? "data: [DONE]\n\n" : ""),
  );
}

const start = (id: string, usage: Record<string, unknown> = {}) =>
  [
    "message_start",
    {
      type: "message_start",
      message: {
        id,
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-6",
        content: [],
        usage: { input_tokens: 10, output_tokens: 1, ...usage },
      },
    },
  ] as [string, unknown];
const textBlock = (index: number, text: string): Array<[string, unknown]> => [
  ["content_block_start", {
    type: "content_block_start",
    index,
    content_block: { type: "text", text: "" },
  }],
  ["content_block_delta", {
    type: "content_block_delta",
    index,
    delta: { type: "text_delta", text },
  }],
  ["content_block_stop", { type: "content_block_stop", index }],
];
const toolOpen = (index: number): Array<[string, unknown]> => [
  ["content_block_start", {
    type: "content_block_start",
    index,
    content_block: {
      type: "tool_use",
      id: "toolu_1",
      name: "read_file",
      input: {},
    },
  }],
  ["content_block_delta", {
    type: "content_block_delta",
    index,
    delta: { type: "input_json_delta", partial_json: '{"path":' },
  }],
];
const end = (stop: string, output = 5): Array<[string, unknown]> => [
  ["message_delta", {
    type: "message_delta",
    delta: { stop_reason: stop },
    usage: { output_tokens: output },
  }],
  ["message_stop", { type: "message_stop" }],
];

async function anthropic(
  body: Uint8Array,
  req: LlmRequest = ask("claude-sonnet-4-6"),
) {
  const server = serve([sse(body)]);
  try {
    return await collect(anthropicAt(server.url).stream(req, KEY));
  } finally {
    await server.close();
  }
}

async function openai(body: Uint8Array, req: LlmRequest = ask("gpt-4.1")) {
  const server = serve([sse(body)]);
  try {
    const provider = openaiAt(server.url);
    return {
      chunks: await collect(provider.stream(req, "sk-PLANTEDopenai0123456789")),
      requests: server.requests,
    };
  } finally {
    await server.close();
  }
}

function calls(chunks: readonly StreamChunk[]) {
  const out = new Map<string, { name: string; args: string; ended: boolean }>();
  for (const c of chunks) {
    if (c.type === "tool_call_start") {
      out.set(c.id, { name: c.name, args: "", ended: false });
    } else if (c.type === "tool_call_delta") {
      const call = out.get(c.id);
      if (call !== undefined) call.args += c.argsJsonDelta;
    } else if (c.type === "tool_call_end") {
      const call = out.get(c.id);
      if (call !== undefined) call.ended = true;
    }
  }
  return [...out.values()];
}

Deno.test("anthropic stream cases", async (t) => {
  const cases: Array<{
    name: string;
    body: Uint8Array;
    check(chunks: StreamChunk[]): void;
  }> = [
    {
      name: "a repeated message_start (same id) is one message",
      body: events([
        start("msg_1"),
        start("msg_1"),
        ...textBlock(0, "Hi"),
        ...end("end_turn"),
      ]),
      check(chunks) {
        assert.equal(textOf(chunks), "Hi");
        const last = terminal(chunks);
        assert.ok(last.type === "stop" && last.stopReason === "stop");
      },
    },
    {
      name: "another message_start before any content replaces the first",
      body: events([
        start("msg_1", { input_tokens: 99 }),
        start("msg_2"),
        ...textBlock(0, "Hi"),
        ...end("end_turn"),
      ]),
      check(chunks) {
        const last = terminal(chunks);
        assert.ok(last.type === "stop");
        assert.equal(
          last.usage.inputTokens,
          10,
          "the first message's usage is dropped",
        );
      },
    },
    {
      name:
        "another message_start mid-message is a transport error, never an open call run with {}",
      body: events([
        start("msg_1"),
        ...toolOpen(0),
        start("msg_2"),
        ...textBlock(0, "x"),
        ...end("tool_use"),
      ]),
      check(chunks) {
        const last = terminal(chunks);
        assert.ok(last.type === "error");
        assert.equal(last.error.kind, "transport");
        assert.ok(
          calls(chunks).every((c) => !c.ended),
          "no call was ended as if complete",
        );
      },
    },
    {
      name: "cache creation by TTL: the total and its one-hour part",
      body: events([
        start("msg_1", {
          cache_read_input_tokens: 7,
          cache_creation_input_tokens: 40,
          cache_creation: {
            ephemeral_5m_input_tokens: 10,
            ephemeral_1h_input_tokens: 30,
          },
        }),
        ...textBlock(0, "Hi"),
        ...end("end_turn"),
      ]),
      check(chunks) {
        const last = terminal(chunks);
        assert.ok(last.type === "stop");
        assert.equal(last.usage.cacheReadTokens, 7);
        assert.equal(last.usage.cacheWriteTokens, 40);
        assert.equal(last.usage.cacheWrite1hTokens, 30);
        assert.equal(last.usageUnknown, undefined);
      },
    },
  ];
  for (const c of cases) {
    await t.step(c.name, async () => c.check(await anthropic(c.body)));
  }
});

Deno.test("anthropic: thinking, text and tool calls go back in the order the model produced them", async () => {
  const server = serve([
    sse(events([start("msg_1"), ...textBlock(0, "ok"), ...end("end_turn")])),
  ]);
  try {
    await collect(
      anthropicAt(server.url).stream({
        model: "claude-sonnet-4-6",
        messages: [
          { role: "user", content: [{ type: "text", text: "q" }] },
          {
            role: "assistant",
            content: [
              { type: "text", text: "First I look." },
              { type: "reasoning", text: "which file?", signature: "sig-1" },
              {
                type: "tool_call",
                id: "toolu_1",
                name: "read_file",
                args: { path: "a" },
              },
            ],
          },
          {
            role: "tool",
            content: [{
              type: "tool_result",
              toolCallId: "toolu_1",
              content: "A",
            }],
          },
        ],
      } as LlmRequest, KEY),
    );
    const body = JSON.parse(server.requests[0]?.body ?? "{}");
    const types = body.messages[1].content.map((b: { type: string }) => b.type);
    assert.deepEqual(types, ["text", "thinking", "tool_use"]);
  } finally {
    await server.close();
  }
});

Deno.test("openai-compatible stream cases", async (t) => {
  const choice = (delta: unknown, finish: string | null = null) => ({
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const usage = {
    choices: [],
    usage: { prompt_tokens: 12, completion_tokens: 4 },
  };
  await t.step(
    "two calls with neither index nor id are two calls",
    async () => {
      const { chunks } = await openai(chat([
        choice({
          role: "assistant",
          tool_calls: [{
            type: "function",
            function: { name: "read_file", arguments: "" },
          }],
        }),
        choice({ tool_calls: [{ function: { arguments: '{"path":"a"}' } }] }),
        choice({
          tool_calls: [{
            type: "function",
            function: { name: "read_file", arguments: '{"path":"b"}' },
          }],
        }),
        choice({}, "tool_calls"),
        usage,
      ]));
      const got = calls(chunks);
      assert.equal(got.length, 2);
      assert.deepEqual(got.map((c) => JSON.parse(c.args)), [{ path: "a" }, {
        path: "b",
      }]);
      assert.ok(got.every((c) => c.ended));
      const last = terminal(chunks);
      assert.ok(last.type === "stop" && last.stopReason === "tool_use");
    },
  );
  await t.step("a legacy delta.function_call is one tool call", async () => {
    const { chunks } = await openai(chat([
      choice({
        role: "assistant",
        function_call: { name: "read_file", arguments: "" },
      }),
      choice({ function_call: { arguments: '{"path":' } }),
      choice({ function_call: { arguments: '"notes.md"}' } }),
      choice({}, "function_call"),
      usage,
    ]));
    const got = calls(chunks);
    assert.equal(got.length, 1);
    assert.equal(got[0]?.name, "read_file");
    assert.deepEqual(JSON.parse(got[0]?.args ?? ""), { path: "notes.md" });
    const last = terminal(chunks);
    assert.ok(last.type === "stop" && last.stopReason === "tool_use");
  });
  await t.step(
    "Gemini's thought signature rides on the call's end and is sent back",
    async () => {
      const { chunks } = await openai(
        chat([
          choice({
            role: "assistant",
            tool_calls: [{
              index: 0,
              id: "call_g1",
              type: "function",
              function: { name: "read_file", arguments: '{"path":"a"}' },
              extra_content: { google: { thought_signature: "SIG+/=" } },
            }],
          }),
          choice({}, "tool_calls"),
          usage,
        ]),
        ask("gemini-3-pro"),
      );
      const endChunk = chunks.find((c) => c.type === "tool_call_end");
      assert.ok(endChunk?.type === "tool_call_end");
      assert.equal(endChunk.signature, "SIG+/=");
      const { requests } = await openai(
        chat([choice({ content: "ok" }), choice({}, "stop"), usage]),
        {
          model: "gemini-3-pro",
          messages: [
            { role: "user", content: [{ type: "text", text: "q" }] },
            {
              role: "assistant",
              content: [{
                type: "tool_call",
                id: "call_g1",
                name: "read_file",
                args: { path: "a" },
                signature: "SIG+/=",
              }],
            },
            {
              role: "tool",
              content: [{
                type: "tool_result",
                toolCallId: "call_g1",
                content: "A",
              }],
            },
          ],
        } as LlmRequest,
      );
      const sent =
        JSON.parse(requests[0]?.body ?? "{}").messages[1].tool_calls[0];
      assert.deepEqual(sent.extra_content, {
        google: { thought_signature: "SIG+/=" },
      });
    },
  );
  await t.step(
    "a stream without a usage chunk stops with usage unknown, never known zeros",
    async () => {
      const { chunks } = await openai(
        chat([choice({ content: "hi" }), choice({}, "stop")]),
      );
      const last = terminal(chunks);
      assert.ok(last.type === "stop");
      assert.equal(last.usageUnknown, true);
    },
  );
  await t.step("with a usage chunk, usage is known", async () => {
    const { chunks } = await openai(
      chat([choice({ content: "hi" }), choice({}, "stop"), usage]),
    );
    const last = terminal(chunks);
    assert.ok(last.type === "stop");
    assert.equal(last.usageUnknown, undefined);
    assert.equal(last.usage.inputTokens, 12);
  });
});
