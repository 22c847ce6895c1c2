/**
 * Provider streaming overhead, for the four wire APIs (Chat Completions,
 * Responses, Anthropic Messages, Gemini): the per-token cost from response
 * bytes to chunks (adapter), to chain events, and to the session's
 * `agent:token` event (adapter + chain + turn), against the read-and-parse
 * floor (read the same body from the same in-memory `fetch`, decode, split
 * on blank lines, `JSON.parse` each event's data). The `fetch` serves a
 * large recorded-format stream in 16 KiB reads.
 *
 *   deno bench bench/sse_bench.ts
 *   deno run bench/sse_bench.ts      # warm-up + timed runs, one table
 */
import { split } from "../tests/_kit/session_parts.ts";
import { createSseParser } from "../llm/sse.ts";
import { createAnthropicProvider } from "../llm/anthropic/provider.ts";
import { createOpenAiProvider } from "../llm/openai/provider.ts";
import { createOpenAiResponsesProvider } from "../llm/openai_responses/provider.ts";
import { createGeminiProvider } from "../llm/gemini/provider.ts";
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

/** A Responses API stream of TOKENS `response.output_text.delta` events. */
function responsesStream(): Uint8Array {
  const item = "msg_0d1e2f3a4b5c6d7e8f90a1b2c3d4e5f6";
  const response =
    `{"id":"resp_0a1b2c3d","object":"response","created_at":1770933892,"status":"in_progress","model":"gpt-5.4-mini","output":[]`;
  const parts: string[] = [
    `event: response.created\ndata: {"type":"response.created","sequence_number":0,"response":${response}}}\n\n`,
    `event: response.output_item.added\ndata: {"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"${item}","type":"message","status":"in_progress","content":[],"role":"assistant"}}\n\n`,
    `event: response.content_part.added\ndata: {"type":"response.content_part.added","sequence_number":2,"item_id":"${item}","output_index":0,"content_index":0,"part":{"type":"output_text","annotations":[],"logprobs":[],"text":""}}\n\n`,
  ];
  for (let i = 0; i < TOKENS; i++) {
    parts.push(
      `event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":${
        i + 3
      },"item_id":"${item}","output_index":0,"content_index":0,"delta":${
        JSON.stringify(words(i))
      },"logprobs":[],"obfuscation":"x1Y2z3"}\n\n`,
    );
  }
  parts.push(
    `event: response.completed\ndata: {"type":"response.completed","sequence_number":${
      TOKENS + 3
    },"response":{"id":"resp_0a1b2c3d","object":"response","status":"completed","model":"gpt-5.4-mini","output":[],"usage":{"input_tokens":24,"input_tokens_details":{"cached_tokens":0},"output_tokens":${TOKENS},"output_tokens_details":{"reasoning_tokens":0},"total_tokens":${
      TOKENS + 24
    }}}}\n\n`,
  );
  return enc.encode(parts.join(""));
}

/** A Gemini `streamGenerateContent?alt=sse` stream of TOKENS text parts. */
function geminiStream(): Uint8Array {
  const parts: string[] = [];
  const tail = (n: number, finish: string): string =>
    `"role":"model"},${finish}"index":0}],"usageMetadata":{"promptTokenCount":24,"candidatesTokenCount":${n},"totalTokenCount":${
      n + 24
    }},"modelVersion":"gemini-2.5-flash","responseId":"mOfqaNbXLuW3nvgPk7v2oAk"}`;
  for (let i = 0; i < TOKENS; i++) {
    parts.push(
      `data: {"candidates":[{"content":{"parts":[{"text":${
        JSON.stringify(words(i))
      }}],${tail(i + 1, "")}\r\n\r\n`,
    );
  }
  parts.push(
    `data: {"candidates":[{"content":{"parts":[{"text":""}],${
      tail(TOKENS, '"finishReason":"STOP",')
    }\r\n\r\n`,
  );
  return enc.encode(parts.join(""));
}

const ANTHROPIC = anthropicStream();
const OPENAI = openAiStream();
const RESPONSES = responsesStream();
const GEMINI = geminiStream();

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

/**
 * The floor: read the same body from the same `fetch`, decode, split on
 * blank lines (`sep`), `JSON.parse` each event's data. Returns the events.
 */
async function readParse(
  fetch: FetchFn,
  sep: string,
): Promise<number> {
  const response = await fetch("http://127.0.0.1/", {});
  if (response.body === null) throw new Error("no body");
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let n = 0;
  while (true) {
    const read = await reader.read();
    if (read.done) break;
    text += decoder.decode(read.value, { stream: true });
    let from = 0;
    let cut = text.indexOf(sep, from);
    while (cut >= 0) {
      const at = text.indexOf("data: ", from) + 6;
      const data = text.slice(at, cut);
      if (data !== "[DONE]") JSON.parse(data);
      n++;
      from = cut + sep.length;
      cut = text.indexOf(sep, from);
    }
    text = text.slice(from);
  }
  return n;
}

interface Wire {
  name: string;
  bytes: Uint8Array;
  sep: string;
  fetch: FetchFn;
  provider: LlmProvider;
  model: string;
}

function wire(
  name: string,
  bytes: Uint8Array,
  model: string,
  make: (fetch: FetchFn) => LlmProvider,
): Wire {
  const fetch = memoryFetch(bytes);
  const sep = name === "Gemini" ? "\r\n\r\n" : "\n\n";
  return { name, bytes, sep, fetch, provider: make(fetch), model };
}

const WIRES: Wire[] = [
  // A custom base URL keeps gpt-5.4-mini on Chat Completions (the official
  // endpoint routes reasoning models to the Responses API).
  wire(
    "Chat Completions",
    OPENAI,
    "gpt-5.4-mini",
    (fetch) =>
      createOpenAiProvider({
        id: "openai",
        baseUrl: "https://compatible.example/v1",
        fetch,
      }),
  ),
  wire(
    "Responses",
    RESPONSES,
    "gpt-5.4-mini",
    (fetch) => createOpenAiResponsesProvider({ fetch }),
  ),
  wire(
    "Anthropic",
    ANTHROPIC,
    "claude-sonnet-4-6",
    (fetch) => createAnthropicProvider({ fetch }),
  ),
  wire(
    "Gemini",
    GEMINI,
    "gemini-2.5-flash",
    (fetch) => createGeminiProvider({ fetch }),
  ),
];

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

function fail(name: string): never {
  throw new Error(`no session for ${name}`);
}

const SESSIONS = new Map(
  WIRES.map((w) => [w.name, session(w.provider, w.model)]),
);

for (const w of WIRES) {
  const live = SESSIONS.get(w.name) ?? fail(w.name);
  Deno.bench({
    name: `${w.name}: read + parse floor (${w.bytes.length} bytes)`,
    group: w.name,
    baseline: true,
    async fn(): Promise<void> {
      await readParse(w.fetch, w.sep);
    },
  });
  Deno.bench({
    name: `${w.name} adapter, bytes → chunks (${TOKENS} tokens)`,
    group: w.name,
    async fn(): Promise<void> {
      await drain(w.provider, w.model);
    },
  });
  Deno.bench({
    name: `${w.name} chain, bytes → chain events (${TOKENS} tokens)`,
    group: w.name,
    async fn(): Promise<void> {
      await chainDrain(w.provider, w.model);
    },
  });
  Deno.bench({
    name: `${w.name} session, bytes → agent:token (${TOKENS} tokens)`,
    group: w.name,
    async fn(): Promise<void> {
      await live.run();
    },
  });
}
Deno.bench({
  name: `SSE parser alone, Anthropic stream (${ANTHROPIC.length} bytes)`,
  group: "parser",
  fn(): void {
    parseAll(ANTHROPIC);
  },
});

/** Runs the stages round-robin (fair under a noisy machine). */
async function timings(
  stages: Record<string, () => unknown>,
  warm: number,
  runs: number,
): Promise<Record<string, number[]>> {
  const times: Record<string, number[]> = {};
  for (let r = 0; r < warm + runs; r++) {
    for (const [name, fn] of Object.entries(stages)) {
      const start = performance.now();
      await fn();
      if (r >= warm) (times[name] ??= []).push(performance.now() - start);
    }
  }
  for (const list of Object.values(times)) list.sort((a, b) => a - b);
  return times;
}

function median(list: number[] | undefined): number {
  return list === undefined ? NaN : list[Math.floor(list.length / 2)] ?? NaN;
}

/** Per-run ratios of `a` to `b` (same round), sorted. */
function ratios(a: number[], b: number[]): number[] {
  return a.map((x, i) => x / (b[i] ?? NaN)).sort((x, y) => x - y);
}

/** `--profile <wire> <stage>`: runs one stage only, for `--cpu-prof`. */
async function profileOne(name: string, stage: string, runs: number) {
  const w = WIRES.find((x) => x.name === name);
  if (w === undefined) throw new Error(`no wire API named ${name}`);
  const live = SESSIONS.get(w.name) ?? fail(w.name);
  const stages: Record<string, () => Promise<number>> = {
    floor: () => readParse(w.fetch, w.sep),
    adapter: () => drain(w.provider, w.model),
    chain: () => chainDrain(w.provider, w.model),
    session: () => live.run(),
  };
  const fn = stages[stage];
  if (fn === undefined) throw new Error(`no stage named ${stage}`);
  for (let i = 0; i < runs; i++) await fn();
}

const flag = (name: string): string | undefined => {
  const at = Deno.args.indexOf(name);
  return at < 0 ? undefined : Deno.args[at + 1];
};

if (import.meta.main && flag("--profile") !== undefined) {
  const at = Deno.args.indexOf("--profile");
  await profileOne(
    Deno.args[at + 1] ?? "",
    Deno.args[at + 2] ?? "",
    Number(flag("--runs")) || 50,
  );
} else if (import.meta.main) {
  const runs = Number(flag("--runs")) || 15;
  const rows: string[] = [
    `${TOKENS} tokens per stream, 16 KiB reads; medians of ${runs} round-robin runs (min–max of the per-run ratio)`,
    "",
    "| wire API | bytes | floor | adapter | chain | session | session / floor | adapter / floor |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
  ];
  for (const w of WIRES) {
    const live = SESSIONS.get(w.name) ?? fail(w.name);
    if ((await readParse(w.fetch, w.sep)) < TOKENS) {
      throw new Error(`${w.name}: the floor lost events`);
    }
    if ((await drain(w.provider, w.model)) !== TOKENS) {
      throw new Error(`${w.name}: lost tokens`);
    }
    if ((await chainDrain(w.provider, w.model)) !== TOKENS) {
      throw new Error(`${w.name}: lost chunks`);
    }
    if ((await live.run()) !== TOKENS) {
      throw new Error(`${w.name}: lost agent:token events`);
    }
    // Unrecorded runs per stage, then timed runs; the per-run ratio pairs
    // each stage with the floor of the same round.
    const t = await timings(
      {
        floor: () => readParse(w.fetch, w.sep),
        adapter: () => drain(w.provider, w.model),
        chain: () => chainDrain(w.provider, w.model),
        session: () => live.run(),
      },
      5,
      runs,
    );
    const floor = t.floor ?? [];
    const ms = (k: string): string => `${median(t[k]).toFixed(1)} ms`;
    const ratio = (k: string): string => {
      const r = ratios(t[k] ?? [], floor);
      return `**${median(r).toFixed(2)}×** (${(r[0] ?? NaN).toFixed(2)}–${
        (r[r.length - 1] ?? NaN).toFixed(2)
      })`;
    };
    rows.push(
      `| ${w.name} | ${w.bytes.length} | ${ms("floor")} | ${ms("adapter")} | ${
        ms("chain")
      } | ${ms("session")} | ${ratio("session")} | ${ratio("adapter")} |`,
    );
  }
  rows.push("");
  Deno.stdout.writeSync(enc.encode(rows.join("\n")));
}
