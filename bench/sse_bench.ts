/**
 * Provider streaming overhead: SSE parsing throughput, and the per-token
 * cost from response bytes to chunks (adapter) and to the session's
 * `agent:token` event (adapter + chain + turn), over an in-memory `fetch`
 * that serves a large recorded-format stream in 16 KiB reads.
 *
 *   deno bench bench/sse_bench.ts
 *   deno run bench/sse_bench.ts      # warm-up + timed runs, medians
 */
import { split } from "../tests/_kit/session_parts.ts";
import { createSseParser } from "../llm/sse.ts";
import { createAnthropicProvider } from "../llm/anthropic/provider.ts";
import { createOpenAiProvider } from "../llm/openai/provider.ts";
import type { FetchFn } from "../llm/http.ts";
import type { LlmProvider } from "../llm/provider.ts";
import { AgentSession } from "../session/session.ts";
import { createChain } from "../llm/chain.ts";
import { completedTurn } from "./_bench_util.ts";

const TOKENS = 20_000;
const READ = 16 * 1024;
const enc = new TextEncoder();

function words(i: number): string {
  return i % 7 === 0 ? " résumé" : ` token${i % 1000}`;
}

/** An Anthropic Messages stream of TOKENS text deltas, in the wire format. */
function anthropicStream(): Uint8Array {
  const parts: string[] = [
    'event: message_start\ndata: {"type":"message_start","message":{"model":"claude-sonnet-4-6","id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"assistant","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":24,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1,"service_tier":"standard"}}}\n\n',
    'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
    'event: ping\ndata: {"type": "ping"}\n\n',
  ];
  for (let i = 0; i < TOKENS; i++) {
    parts.push(
      `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":${
        JSON.stringify(words(i))
      }}}\n\n`,
    );
  }
  parts.push(
    'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
    `event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":${TOKENS}}}\n\n`,
    'event: message_stop\ndata: {"type":"message_stop"}\n\n',
  );
  return enc.encode(parts.join(""));
}

/** An OpenAI chat.completion.chunk stream of TOKENS content deltas. */
function openAiStream(): Uint8Array {
  const head =
    '{"id":"chatcmpl-D8Z5oo6uDh67AD85p73ksdT1KxhE0","object":"chat.completion.chunk","created":1770933892,"model":"gpt-5.4-mini","service_tier":"default","system_fingerprint":"fp_de604bd877","choices":[{"index":0,"delta":';
  const parts: string[] = [];
  for (let i = 0; i < TOKENS; i++) {
    parts.push(
      `data: ${head}{"content":${
        JSON.stringify(words(i))
      }},"logprobs":null,"finish_reason":null}],"usage":null}\n\n`,
    );
  }
  parts.push(
    `data: ${head}{},"logprobs":null,"finish_reason":"stop"}],"usage":null}\n\n`,
    `data: {"id":"chatcmpl-D8Z5oo6uDh67AD85p73ksdT1KxhE0","object":"chat.completion.chunk","created":1770933892,"model":"gpt-5.4-mini","choices":[],"usage":{"prompt_tokens":24,"completion_tokens":${TOKENS},"total_tokens":${
      TOKENS + 24
    }}}\n\n`,
    "data: [DONE]\n\n",
  );
  return enc.encode(parts.join(""));
}

const ANTHROPIC = anthropicStream();
const OPENAI = openAiStream();

/** A fetch that serves `bytes` in READ-sized reads. */
function memoryFetch(bytes: Uint8Array): FetchFn {
  return () => {
    let offset = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller): void {
        if (offset >= bytes.length) {
          controller.close();
          return;
        }
        controller.enqueue(bytes.subarray(offset, offset + READ));
        offset += READ;
      },
    });
    return Promise.resolve(
      new Response(body, { headers: { "content-type": "text/event-stream" } }),
    );
  };
}

function parseAll(bytes: Uint8Array): number {
  const p = createSseParser();
  let events = 0;
  for (let at = 0; at < bytes.length; at += READ) {
    const r = p.push(bytes.subarray(at, at + READ));
    if (r.ok) events += r.value.length;
  }
  const end = p.end();
  return end.ok ? events + end.value.length : events;
}

/** The irreducible part: decode, split on blank lines, JSON.parse each. */
function bareParse(bytes: Uint8Array): number {
  const decoder = new TextDecoder();
  let text = "";
  let n = 0;
  for (let at = 0; at < bytes.length; at += READ) {
    text += decoder.decode(bytes.subarray(at, at + READ), { stream: true });
    let cut = text.indexOf("\n\n");
    while (cut >= 0) {
      const block = text.slice(0, cut);
      text = text.slice(cut + 2);
      const data = block.slice(block.indexOf("data: ") + 6);
      if (data !== "[DONE]") JSON.parse(data);
      n++;
      cut = text.indexOf("\n\n");
    }
  }
  return n;
}

const anthropic = createAnthropicProvider({ fetch: memoryFetch(ANTHROPIC) });
const openai = createOpenAiProvider({
  id: "openai",
  fetch: memoryFetch(OPENAI),
});

async function drain(provider: LlmProvider, model: string): Promise<number> {
  let n = 0;
  const req = {
    model,
    messages: [{
      role: "user" as const,
      content: [{ type: "text" as const, text: "Go" }],
    }],
  };
  for await (const c of provider.stream(req, "k")) {
    if (c.type === "text_delta") n++;
  }
  return n;
}

let ids = 0;
function session(
  provider: LlmProvider,
  model: string,
): { run(): Promise<number> } {
  let tokens = 0;
  const s = new AgentSession({
    sessionId: "s",
    agentRef: "bench",
    agent: {
      id: "bench",
      model,
      provider: provider.id,
      system_prompt: "You help.",
      memory: { type: "none" },
    },
    context: { workingDir: "/work", fsScopeTier: "sandboxed" },
    ...split({
      clock: { now: () => 1_700_000_000_000 },
      ids: () => `id-${ids++}`,
      resolveProvider: () => provider,
      keyFor: () => "k",
      sleep: () => Promise.resolve(),
      emit: (d) => {
        if (d.type === "agent:token") tokens++;
      },
      maxTurns: 1_000_000,
    }),
  });
  s.start();
  return {
    async run(): Promise<number> {
      tokens = 0;
      await completedTurn(s.sendMessage("Go"));
      return tokens;
    },
  };
}

const anthropicSession = session(anthropic, "claude-sonnet-4-6");
const openAiSession = session(openai, "gpt-5.4-mini");

Deno.bench({
  name: `SSE parse, Anthropic stream (${ANTHROPIC.length} bytes)`,
  group: "parse",
  baseline: true,
  fn(): void {
    parseAll(ANTHROPIC);
  },
});
Deno.bench({
  name: `SSE parse, OpenAI stream (${OPENAI.length} bytes)`,
  group: "parse",
  fn(): void {
    parseAll(OPENAI);
  },
});
Deno.bench({
  name: `bare split + JSON.parse, Anthropic stream`,
  group: "parse",
  fn(): void {
    bareParse(ANTHROPIC);
  },
});
Deno.bench({
  name: `Anthropic adapter, bytes → chunks (${TOKENS} tokens)`,
  group: "anthropic",
  baseline: true,
  async fn(): Promise<void> {
    await drain(anthropic, "claude-sonnet-4-6");
  },
});
Deno.bench({
  name: `Anthropic session, bytes → agent:token (${TOKENS} tokens)`,
  group: "anthropic",
  async fn(): Promise<void> {
    await anthropicSession.run();
  },
});
Deno.bench({
  name: `Anthropic chain, bytes → chain events (${TOKENS} tokens)`,
  group: "anthropic",
  async fn(): Promise<void> {
    await chainDrain(anthropic, "claude-sonnet-4-6");
  },
});
Deno.bench({
  name: `OpenAI adapter, bytes → chunks (${TOKENS} tokens)`,
  group: "openai",
  baseline: true,
  async fn(): Promise<void> {
    await drain(openai, "gpt-5.4-mini");
  },
});
Deno.bench({
  name: `OpenAI session, bytes → agent:token (${TOKENS} tokens)`,
  group: "openai",
  async fn(): Promise<void> {
    await openAiSession.run();
  },
});

/** Runs the stages round-robin (fair under a noisy machine); medians in ms. */
async function medians(
  stages: Record<string, () => unknown>,
  warm = 5,
  runs = 15,
): Promise<Record<string, number>> {
  const times: Record<string, number[]> = {};
  for (let r = 0; r < warm + runs; r++) {
    for (const [name, fn] of Object.entries(stages)) {
      const start = performance.now();
      await fn();
      if (r >= warm) (times[name] ??= []).push(performance.now() - start);
    }
  }
  const out: Record<string, number> = {};
  for (const [name, list] of Object.entries(times)) {
    list.sort((a, b) => a - b);
    out[name] = list[Math.floor(list.length / 2)] ?? NaN;
  }
  return out;
}

async function chainDrain(
  provider: LlmProvider,
  model: string,
): Promise<number> {
  const chain = createChain({
    plan: [{ provider, model, maxAttempts: 1 }],
    keyFor: () => "k",
    sleep: () => Promise.resolve(),
  });
  const req = {
    model: "",
    messages: [{
      role: "user" as const,
      content: [{ type: "text" as const, text: "Go" }],
    }],
  };
  let n = 0;
  for await (const e of chain.stream(req, new AbortController().signal)) {
    if (e.type === "chunk" && e.chunk.type === "text_delta") n++;
  }
  return n;
}

if (import.meta.main) {
  const out: string[] = [];
  const mbps = (bytes: number, ms: number): string =>
    `${(bytes / 1e6 / (ms / 1000)).toFixed(0)} MB/s`;
  const us = (ms: number | undefined): string =>
    `${(((ms ?? NaN) * 1000) / TOKENS).toFixed(2)} µs/token`;
  for (
    const [name, bytes, provider, model, live] of [
      [
        "Anthropic",
        ANTHROPIC,
        anthropic,
        "claude-sonnet-4-6",
        anthropicSession,
      ],
      ["OpenAI", OPENAI, openai, "gpt-5.4-mini", openAiSession],
    ] as const
  ) {
    if ((await drain(provider, model)) !== TOKENS) {
      throw new Error("lost tokens");
    }
    if ((await chainDrain(provider, model)) !== TOKENS) {
      throw new Error("lost chunks");
    }
    if ((await live.run()) !== TOKENS) {
      throw new Error("lost agent:token events");
    }
    const m = await medians({
      parse: () => parseAll(bytes),
      bare: () => bareParse(bytes),
      adapter: () => drain(provider, model),
      chain: () => chainDrain(provider, model),
      session: () => live.run(),
    });
    const ms = (k: string): string => `${(m[k] ?? NaN).toFixed(1)} ms`;
    const engine = (m.session ?? NaN) - (m.adapter ?? NaN);
    out.push(
      `${name}: ${bytes.length} bytes, ${TOKENS} tokens (medians of 15, round-robin)\n` +
        `  SSE parse                 ${ms("parse")}  ${
          mbps(bytes.length, m.parse ?? NaN)
        }\n` +
        `  bare split + JSON.parse   ${ms("bare")}  ${
          mbps(bytes.length, m.bare ?? NaN)
        }\n` +
        `  adapter: bytes → chunks   ${ms("adapter")}  ${us(m.adapter)}\n` +
        `  + chain: → chain events   ${ms("chain")}  ${us(m.chain)}\n` +
        `  + session: → agent:token  ${ms("session")}  ${us(m.session)}\n` +
        `  engine (chain + turn) above the adapter: ${us(engine)}\n`,
    );
  }
  Deno.stdout.writeSync(enc.encode(out.join("")));
}
