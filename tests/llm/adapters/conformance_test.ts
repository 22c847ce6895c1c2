/**
 * One table of wire behaviours every streaming adapter shares, run against
 * each of them (Anthropic, OpenAI Chat Completions, OpenAI Responses,
 * Gemini) on loopback servers: a mid-stream error, a cut connection, stray
 * and malformed SSE lines, an abort, a redirect, a planted key. Each
 * adapter gives its own wire bytes for the case; the assertions are the
 * same for all.
 */
import assert from "node:assert/strict";
import { anthropicAt, geminiAt, openaiAt, responsesAt } from "./_adapters.ts";
import type { LlmProvider, LlmRequest, StreamChunk } from "../../../llm/mod.ts";
import { createOpenAiProvider } from "../../../llm/openai/provider.ts";
import {
  argsOf,
  ask,
  collect,
  cutServer,
  fixture,
  held,
  http,
  json,
  type Reply,
  serve,
  sse,
  terminal,
  textOf,
  within,
} from "./_server.ts";
import { chunk, MODEL as GEMINI_MODEL, USAGE, wire } from "./_gemini_wire.ts";
import { CALL, created } from "./_responses_wire.ts";

const enc = new TextEncoder();

/** What one adapter brings to the table: how to build it and its wire bytes. */
interface Adapter {
  name: string;
  /** The provider id errors name. */
  id: string;
  model: string;
  /** The keys planted in the key-leak case. */
  keys: readonly string[];
  /** The provider, treated as the official endpoint, on `url`. */
  official(url: string): LlmProvider;
  /** The provider the key-leak case uses (the official one unless said). */
  leaky?(url: string): LlmProvider;
  /** The request path a redirect points back at. */
  path: string;
  /** The header that carries `key`, and its value. */
  auth(key: string): [string, string];
  /** A plain-text stream. */
  text: Uint8Array;
  /** The part of `text` up to its first text delta, not its end. */
  textHead: Uint8Array;
  /** "Starting", then an error event of `kind` and `code`. */
  midStreamError: { body: Uint8Array; kind: string; code: string };
  /** "Fine" between stray lines, then a normal end. */
  malformedLine: Uint8Array;
  /** "Half", then data that is not JSON. */
  malformedData: Uint8Array;
  /** Bytes cut before the end, and what reached the caller before the cut. */
  cut: { bytes: Uint8Array; forwarded(chunks: StreamChunk[]): void };
  /** A 401 body and a stream error event that both echo `key`. */
  echo(key: string): { refusal: string; stream: Uint8Array };
  /**
   * A tool call whose arguments come in pieces: the chunk types besides
   * the argument deltas, where the call starts, its id, name and arguments.
   */
  toolCall: {
    body: Uint8Array;
    types: readonly string[];
    at: number;
    id: string;
    name: string;
    args: unknown;
  };
  /** Error responses and what each is classified as. */
  errors: ReadonlyArray<Refusal>;
}

/** One error response and its classification. */
interface Refusal {
  label: string;
  reply: Reply;
  kind: string;
  status: number;
  code?: string;
  retryAfterMs?: number;
}

/** Recorded `.http` refusals: `[provider, fixture, kind, status, code]`. */
const RECORDED: ReadonlyArray<[string, string, string, number, string]> = [
  ["anthropic", "error_401.http", "auth", 401, "authentication_error"],
  ["anthropic", "error_403.http", "auth", 403, "permission_error"],
  ["anthropic", "error_404.http", "bad_request", 404, "not_found_error"],
  [
    "anthropic",
    "error_400_bad.http",
    "bad_request",
    400,
    "invalid_request_error",
  ],
  ["anthropic", "error_500.http", "overloaded", 500, "api_error"],
  ["anthropic", "error_529.http", "overloaded", 529, "overloaded_error"],
  ["anthropic", "error_429.http", "rate_limit", 429, "rate_limit_error"],
  ["openai", "error_401.http", "auth", 401, "invalid_api_key"],
  ["openai", "error_429.http", "rate_limit", 429, "rate_limit_exceeded"],
  ["openai", "error_429_quota.http", "auth", 429, "insufficient_quota"],
  ["openai", "error_503.http", "overloaded", 503, "server_error"],
  ["openai", "error_400_bad.http", "bad_request", 400, "unsupported_parameter"],
];

/**
 * The recorded refusals of `provider`, then its 429 once more for the
 * `retry-after` it carries.
 */
function recorded(provider: string, retryAfterMs: number): Refusal[] {
  const rows: Refusal[] = RECORDED.filter(([p]) => p === provider).map((
    [, label, kind, status, code],
  ) => ({ label, reply: http(fixture(provider, label)), kind, status, code }));
  rows.push({
    label: "retry-after becomes retryAfterMs",
    reply: http(fixture(provider, "error_429.http")),
    kind: "rate_limit",
    status: 429,
    retryAfterMs,
  });
  return rows;
}

const ANTHROPIC_KEY = "sk-ant-api03-PLANTEDkey0123456789abcdefXYZ";
const OPENAI_KEY = "sk-proj-PLANTEDkey0123456789abcdefghijXYZ";
const LOCAL_KEY = "local-planted-secret-42";
const RESPONSES_KEY = "sk-proj-PLANTEDresponses0123456789abcdefXYZ";
const GEMINI_KEY = "AIzaSyPLANTED-gemini-key-0123456789abcd";

/** The SSE bytes of `events`, each with its `event:` name (Anthropic, Responses). */
function named(events: ReadonlyArray<Record<string, unknown>>): Uint8Array {
  return enc.encode(
    events.map((e) =>
      `event: ${String(e["type"])}\ndata: ${JSON.stringify(e)}\n\n`
    )
      .join(""),
  );
}

/** The first `n` bytes of `bytes` up to the first occurrence of `marker`. */
function before(bytes: Uint8Array, marker: string, back = 0): Uint8Array {
  const text = new TextDecoder().decode(bytes);
  return enc.encode(text.slice(0, text.indexOf(marker) - back));
}

const anthropicText = fixture("anthropic", "text.sse");
const openaiText = fixture("openai", "text.sse");
const openaiTools = fixture("openai", "tool_split_args.sse");

const delta = (text: string) => ({
  type: "response.output_text.delta",
  item_id: "m",
  delta: text,
});
const responsesText = named([
  created,
  delta("Bonjour"),
  delta(" le monde"),
  {
    type: "response.completed",
    response: {
      status: "completed",
      usage: { input_tokens: 5, output_tokens: 3 },
    },
  },
]);
const geminiText = wire([
  chunk([{ text: "Bonjour" }]),
  chunk([{ text: " le monde" }], { finishReason: "STOP", usage: USAGE }),
]);

const ADAPTERS: readonly Adapter[] = [
  {
    name: "anthropic",
    id: "anthropic",
    model: "claude-sonnet-4-6",
    keys: [ANTHROPIC_KEY],
    official: (url) => anthropicAt(url, { promptCaching: false }),
    path: "/v1/messages",
    auth: (key) => ["x-api-key", key],
    text: anthropicText,
    textHead: before(anthropicText, "event: content_block_stop"),
    midStreamError: {
      body: fixture("anthropic", "error_event.sse"),
      kind: "overloaded",
      code: "overloaded_error",
    },
    malformedLine: fixture("anthropic", "malformed_line.sse"),
    malformedData: fixture("anthropic", "malformed_data.sse"),
    cut: {
      bytes: anthropicText.slice(0, Math.floor(anthropicText.length * 0.6)),
      forwarded: (chunks) =>
        assert.ok(
          textOf(chunks).startsWith("Bonjour"),
          "chunks before the cut were forwarded",
        ),
    },
    echo: (key) => ({
      refusal:
        `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key: ${key}"}}`,
      stream: enc.encode(
        `event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":1,"output_tokens":1}}}\n\n` +
          `event: error\ndata: {"type":"error","error":{"type":"api_error","message":"upstream rejected key ${key} (x-api-key=${key})"}}\n\n`,
      ),
    }),
    toolCall: {
      body: fixture("anthropic", "tool_split_args.sse"),
      types: ["text_delta", "tool_call_start", "tool_call_end", "stop"],
      at: 1,
      id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
      name: "get_weather",
      args: { location: "San Francisco, CA", unit: "celsius" },
    },
    errors: recorded("anthropic", 2000),
  },
  {
    name: "openai chat completions",
    id: "openai",
    // Not a reasoning model: the official endpoint serves it through Chat
    // Completions.
    model: "gpt-4.1",
    keys: [OPENAI_KEY, LOCAL_KEY],
    official: (url) => openaiAt(url),
    leaky: (url) => createOpenAiProvider({ id: "local", fetch, baseUrl: url }),
    path: "/chat/completions",
    auth: (key) => ["authorization", `Bearer ${key}`],
    text: openaiText,
    textHead: before(openaiText, '"finish_reason":"stop"', 200),
    midStreamError: {
      body: fixture("openai", "error_midstream.sse"),
      kind: "overloaded",
      code: "server_error",
    },
    malformedLine: fixture("openai", "malformed_line.sse"),
    malformedData: fixture("openai", "malformed_data.sse"),
    cut: {
      bytes: openaiTools.slice(0, Math.floor(openaiTools.length * 0.7)),
      forwarded: (chunks) => assert.equal(chunks[0]?.type, "tool_call_start"),
    },
    echo: (key) => ({
      refusal:
        `{"error":{"message":"Incorrect API key provided: ${key}. Header was Authorization: Bearer ${key}","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
      stream: enc.encode(
        `data: {"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":null}]}\n\n` +
          `data: {"error":{"message":"key ${key} revoked","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}\n\n`,
      ),
    }),
    toolCall: {
      body: openaiTools,
      types: ["tool_call_start", "tool_call_end", "stop"],
      at: 0,
      id: "call_DdmO9pD3xa9XTPNJ32zg2hcA",
      name: "get_weather",
      args: { location: "San Francisco, CA" },
    },
    errors: recorded("openai", 3000),
  },
  {
    name: "openai responses",
    id: "openai",
    model: "gpt-5.4",
    keys: [RESPONSES_KEY],
    official: (url) => responsesAt(url),
    path: "/responses",
    auth: (key) => ["authorization", `Bearer ${key}`],
    text: responsesText,
    textHead: before(responsesText, " le monde"),
    midStreamError: {
      body: named([created, delta("Starting"), {
        type: "error",
        code: "rate_limit_exceeded",
        message: "Rate limit reached",
        param: null,
      }]),
      kind: "rate_limit",
      code: "rate_limit_exceeded",
    },
    malformedLine: enc.encode(
      `: keep-alive\n\n${
        new TextDecoder().decode(named([created]))
      }garbage line without a colon\nretry: 1000\n\n${
        new TextDecoder().decode(named([delta("Fine"), {
          type: "response.completed",
          response: {
            status: "completed",
            usage: { input_tokens: 5, output_tokens: 1 },
          },
        }]))
      }`,
    ),
    malformedData: enc.encode(
      `${
        new TextDecoder().decode(named([created, delta("Half")]))
      }event: response.output_text.delta\ndata: {"type":"response.outp\n\n`,
    ),
    cut: {
      bytes: before(responsesText, "response.completed"),
      forwarded: (chunks) => assert.ok(textOf(chunks).startsWith("Bonjour")),
    },
    echo: (key) => ({
      refusal:
        `{"error":{"message":"Incorrect API key provided: ${key}","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
      stream: named([created, delta("x"), {
        type: "error",
        code: "invalid_api_key",
        message: `key ${key} revoked`,
        param: null,
      }]),
    }),
    toolCall: {
      body: named(CALL),
      types: [
        "reasoning_start",
        "reasoning_end",
        "tool_call_start",
        "tool_call_end",
        "stop",
      ],
      at: 2,
      id: "call_abc",
      name: "read_file",
      args: { path: "notes.txt" },
    },
    errors: [{
      label: "401",
      reply: json(401, {
        error: {
          message: "Incorrect API key provided",
          type: "invalid_request_error",
          code: "invalid_api_key",
        },
      }),
      kind: "auth",
      status: 401,
      code: "invalid_api_key",
    }, {
      label: "429 with retry-after",
      reply: json(429, {
        error: {
          message: "Rate limit reached for requests",
          type: "requests",
          code: "rate_limit_exceeded",
        },
      }, { "retry-after": "2" }),
      kind: "rate_limit",
      status: 429,
      code: "rate_limit_exceeded",
      retryAfterMs: 2000,
    }],
  },
  {
    name: "gemini",
    id: "gemini",
    model: GEMINI_MODEL,
    keys: [GEMINI_KEY],
    official: (url) => geminiAt(url),
    path: `/v1beta/models/${GEMINI_MODEL}:streamGenerateContent?alt=sse`,
    auth: (key) => ["x-goog-api-key", key],
    text: geminiText,
    textHead: before(geminiText, " le monde"),
    midStreamError: {
      body: wire([chunk([{ text: "Starting" }]), {
        error: { code: 503, message: "Overloaded", status: "UNAVAILABLE" },
      }]),
      kind: "overloaded",
      code: "UNAVAILABLE",
    },
    malformedLine: enc.encode(
      `: keep-alive\r\n\r\ngarbage line without a colon\r\nretry: 1000\r\n\r\n${
        new TextDecoder().decode(
          wire([
            chunk([{ text: "Fine" }], { finishReason: "STOP", usage: USAGE }),
          ]),
        )
      }`,
    ),
    malformedData: enc.encode(
      `${
        new TextDecoder().decode(wire([chunk([{ text: "Half" }])]))
      }data: {"candidates":[{"cont\r\n\r\n${
        new TextDecoder().decode(
          wire([chunk([{ text: "" }], { finishReason: "STOP", usage: USAGE })]),
        )
      }`,
    ),
    cut: {
      bytes: before(geminiText, " le monde"),
      forwarded: (chunks) => assert.ok(textOf(chunks).startsWith("Bonjour")),
    },
    echo: (key) => ({
      refusal: JSON.stringify({
        error: {
          code: 401,
          message: `API key not valid: ${key}`,
          status: "UNAUTHENTICATED",
        },
      }),
      stream: wire([chunk([{ text: "x" }]), {
        error: {
          code: 500,
          message: `upstream rejected key ${key}`,
          status: "INTERNAL",
        },
      }]),
    }),
    toolCall: {
      body: wire([
        chunk([{ text: "Let me look." }]),
        chunk([{
          functionCall: { name: "read_file", args: { path: "notes.txt" } },
        }], {
          finishReason: "STOP",
          usage: USAGE,
        }),
      ]),
      types: ["text_delta", "tool_call_start", "tool_call_end", "stop"],
      at: 1,
      id: "gemini_call_resp-1_0",
      name: "read_file",
      args: { path: "notes.txt" },
    },
    errors: [{
      label: "403 PERMISSION_DENIED",
      reply: json(403, {
        error: { code: 403, message: "Denied", status: "PERMISSION_DENIED" },
      }),
      kind: "auth",
      status: 403,
      code: "PERMISSION_DENIED",
    }, {
      label: "429 with a retry-after header",
      reply: json(429, {
        error: { code: 429, message: "Quota", status: "RESOURCE_EXHAUSTED" },
      }, { "retry-after": "2" }),
      kind: "rate_limit",
      status: 429,
      code: "RESOURCE_EXHAUSTED",
      retryAfterMs: 2000,
    }],
  },
];

/** The chunks of one call of `a` against a server that answers `body`. */
async function once(a: Adapter, body: Uint8Array): Promise<StreamChunk[]> {
  const server = serve([sse(body)]);
  try {
    return await collect(a.official(server.url).stream(ask(a.model), "k"));
  } finally {
    await server.close();
  }
}

/** Runs `check` as one step per adapter. */
async function eachAdapter(
  t: Deno.TestContext,
  check: (a: Adapter) => Promise<void>,
): Promise<void> {
  for (const a of ADAPTERS) await t.step(a.name, () => check(a));
}

Deno.test("LlmProvider.stream() joins a tool call's arguments and stops for tool use", async (t) => {
  await eachAdapter(t, async (a) => {
    const { body, types, at, id, name, args } = a.toolCall;
    const chunks = await once(a, body);
    assert.deepEqual(
      chunks.filter((c) => c.type !== "tool_call_delta").map((c) => c.type),
      types,
    );
    assert.deepEqual(chunks[at], { type: "tool_call_start", id, name });
    assert.deepEqual(JSON.parse(argsOf(chunks, id)), args);
    const last = terminal(chunks);
    assert.ok(last.type === "stop" && last.stopReason === "tool_use");
  });
});

Deno.test("LlmProvider.stream() turns a mid-stream error event into an error chunk", async (t) => {
  await eachAdapter(t, async (a) => {
    const chunks = await once(a, a.midStreamError.body);
    assert.equal(textOf(chunks), "Starting");
    const last = terminal(chunks);
    assert.ok(last.type === "error");
    assert.equal(last.error.kind, a.midStreamError.kind);
    assert.equal(last.error.code, a.midStreamError.code);
  });
});

Deno.test("LlmProvider.stream() reports a connection cut mid-stream as transport, never a clean stop", async (t) => {
  await eachAdapter(t, async (a) => {
    const cut = cutServer(a.cut.bytes);
    const chunks = await collect(a.official(cut.url).stream(ask(a.model), "k"));
    await within(cut.done, 5000, "the cut server");
    a.cut.forwarded(chunks);
    const last = terminal(chunks);
    assert.ok(last.type === "error");
    assert.equal(last.error.kind, "transport");
  });
});

Deno.test("LlmProvider.stream() ignores stray SSE lines and refuses malformed event data", async (t) => {
  await eachAdapter(t, async (a) => {
    const ok = await once(a, a.malformedLine);
    assert.equal(textOf(ok), "Fine");
    assert.equal(terminal(ok).type, "stop");
    const bad = await once(a, a.malformedData);
    assert.equal(textOf(bad), "Half");
    const last = terminal(bad);
    assert.ok(last.type === "error" && last.error.kind === "transport");
  });
});

Deno.test("LlmProvider.stream() stops reading at abort and the server sees the connection close", async (t) => {
  await eachAdapter(t, async (a) => {
    const hold = held(a.textHead);
    const server = serve([hold.reply]);
    try {
      const controller = new AbortController();
      const req: LlmRequest = { ...ask(a.model), signal: controller.signal };
      const seen: StreamChunk[] = [];
      for await (const c of a.official(server.url).stream(req, "k")) {
        seen.push(c);
        if (c.type === "text_delta") controller.abort();
        if (seen.length > 50) break;
      }
      assert.deepEqual(seen.map((c) => c.type), ["text_delta", "error"]);
      const last = terminal(seen);
      assert.ok(last.type === "error" && last.error.kind === "cancelled");
      await within(hold.closed, 5000, "the server to see the connection close");
    } finally {
      await server.close();
    }
  });
});

Deno.test("LlmProvider.stream() makes no request when the signal is already aborted", async (t) => {
  await eachAdapter(t, async (a) => {
    const server = serve([]);
    try {
      const controller = new AbortController();
      controller.abort();
      const chunks = await collect(
        a.official(server.url).stream({
          ...ask(a.model),
          signal: controller.signal,
        }, "k"),
      );
      assert.ok(terminal(chunks).type === "error");
      assert.equal(server.requests.length, 0);
    } finally {
      await server.close();
    }
  });
});

Deno.test("LlmProvider.stream() never follows a redirect", async (t) => {
  await eachAdapter(t, async (a) => {
    for (const status of [302, 307]) {
      const target = serve([sse(a.text)]);
      const server = serve([
        () =>
          new Response(null, {
            status,
            headers: { location: `${target.url}${a.path}` },
          }),
      ]);
      try {
        const last = terminal(
          await collect(a.official(server.url).stream(ask(a.model), "k")),
        );
        assert.ok(last.type === "error" && last.error.kind === "bad_request");
        assert.equal(last.error.code, "redirect_refused");
        assert.equal(
          target.requests.length,
          0,
          "the key never reached the redirect target",
        );
      } finally {
        await server.close();
        await target.close();
      }
    }
  });
});

Deno.test("LlmProvider.stream() keeps a planted key out of every chunk and error", async (t) => {
  await eachAdapter(t, async (a) => {
    for (const key of a.keys) {
      const { refusal, stream } = a.echo(key);
      const server = serve([
        () => new Response(refusal, { status: 401 }),
        sse(stream),
      ]);
      try {
        const provider = (a.leaky ?? a.official)(server.url);
        for (let i = 0; i < 2; i++) {
          const chunks = await collect(provider.stream(ask(a.model), key));
          assert.ok(terminal(chunks).type === "error");
          const json = JSON.stringify(chunks);
          assert.ok(!json.includes(key), json);
          assert.ok(!json.includes("PLANTED") && !json.includes("planted"));
        }
        assert.equal(server.requests.length, 2);
        for (const r of server.requests) {
          assert.ok(!r.body.includes(key));
          const [header, value] = a.auth(key);
          assert.equal(r.headers.get(header), value);
        }
      } finally {
        await server.close();
      }
    }
  });
});

Deno.test("LlmProvider.stream() classifies error responses", async (t) => {
  for (const a of ADAPTERS) {
    for (const r of a.errors) {
      await t.step(`${a.name}: ${r.label}`, async () => {
        const server = serve([r.reply]);
        try {
          const chunks = await collect(
            a.official(server.url).stream(ask(a.model), "k"),
          );
          assert.equal(chunks.length, 1);
          const e = terminal(chunks);
          assert.ok(e.type === "error");
          assert.equal(e.error.kind, r.kind);
          assert.equal(e.error.status, r.status);
          assert.equal(e.error.provider, a.id);
          if (r.code !== undefined) assert.equal(e.error.code, r.code);
          if (r.retryAfterMs !== undefined) {
            assert.equal(e.error.retryAfterMs, r.retryAfterMs);
          }
        } finally {
          await server.close();
        }
      });
    }
  }
});
