/**
 * The stream watchdog against loopback servers that misbehave: one that
 * never answers, one that stalls after its headers, one that pings
 * forever, one whose body never ends; and 200 aborted calls against a
 * silent server, every connection of which the server sees closed.
 * Timeouts here are short configured values; each test asserts that the
 * call ENDS with the right error, bounded by `within` (a guard, not a
 * timing claim).
 */
import assert from "node:assert/strict";
import { anthropicAt, openaiAt } from "./_adapters.ts";
import type { LlmError, LlmProvider, StreamChunk } from "../../../llm/mod.ts";
import { type AttemptReport, createChain } from "../../../llm/chain.ts";
import type { ChainEvent } from "../../../llm/chain_event.ts";
import { ask, collect, serve, silentServer, within } from "./_server.ts";
import {
  ANTHROPIC_START,
  ANTHROPIC_TEXT_BLOCK,
  anthropicDelta,
  anthropicEnd,
} from "../../_kit/anthropic_sse.ts";

const KEY = "sk-ant-api03-PLANTEDkey0123456789abcdefXYZ";
const enc = new TextEncoder();

interface Limits {
  firstByteTimeoutMs?: number;
  idleTimeoutMs?: number;
  maxResponseBytes?: number;
}

function anthropic(url: string, limits: Limits) {
  return anthropicAt(url, limits);
}

/** Streams one call and waits (bounded) until it ends: its chunks. */
function callEnds(
  url: string,
  limits: Limits,
  guardMs = 10_000,
): Promise<StreamChunk[]> {
  return within(
    collect(anthropic(url, limits).stream(ask("claude-sonnet-4-6"), KEY)),
    guardMs,
    "the call to end",
  );
}

function lastError(chunks: readonly StreamChunk[]): LlmError {
  const last = chunks[chunks.length - 1];
  assert.ok(last !== undefined && last.type === "error", "ends with an error");
  return last.error;
}

/** The call's error, checked to be the timeout `code`. */
function timedOut(chunks: readonly StreamChunk[], code: string): LlmError {
  const error = lastError(chunks);
  assert.equal(error.kind, "timeout");
  assert.equal(error.code, code);
  return error;
}

/** Waits (polling every 10 ms, at most `ms`) until `check` holds. */
async function until(check: () => boolean, ms: number, label: string) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting: ${label}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** An SSE body that repeats `event` every few ms until cancelled. */
function repeating(first: string, event: string, everyMs: number): Response {
  let timer: ReturnType<typeof setInterval> | undefined;
  return new Response(
    new ReadableStream<Uint8Array>({
      start(controller): void {
        controller.enqueue(enc.encode(first));
        timer = setInterval(() => {
          try {
            controller.enqueue(enc.encode(event));
          } catch {
            clearInterval(timer);
          }
        }, everyMs);
      },
      cancel(): void {
        clearInterval(timer);
      },
    }),
    { headers: { "content-type": "text/event-stream" } },
  );
}

const START = ANTHROPIC_START;
const PING = `event: ping\ndata: {"type":"ping"}\n\n`;
const TEXT = ANTHROPIC_TEXT_BLOCK + anthropicDelta("Hello");
const END = anthropicEnd(2);

Deno.test("watchdog: a server that never answers ends the call with a first-byte timeout", async () => {
  const server = silentServer();
  try {
    const chunks = await callEnds(server.url, { firstByteTimeoutMs: 200 });
    const error = timedOut(chunks, "first_byte_timeout");
    assert.equal(error.retryable, true);
    await until(() => server.closed() === server.accepted(), 5_000, "close");
  } finally {
    server.close();
  }
});

Deno.test("watchdog: a server that stalls after its headers ends the call with a first-byte timeout", async () => {
  let cancelled = false;
  const server = serve([() =>
    new Response(
      new ReadableStream<Uint8Array>({
        cancel(): void {
          cancelled = true;
        },
      }),
      { headers: { "content-type": "text/event-stream" } },
    )]);
  try {
    const chunks = await callEnds(server.url, { firstByteTimeoutMs: 200 });
    timedOut(chunks, "first_byte_timeout");
    await until(() => cancelled, 5_000, "the body to be cancelled");
  } finally {
    await server.close();
  }
});

Deno.test("watchdog: pings forever are not content: the first-byte timeout still ends the call", async () => {
  const server = serve([() => repeating(START, PING, 20)]);
  try {
    const chunks = await callEnds(server.url, { firstByteTimeoutMs: 300 });
    assert.ok(chunks.every((c) => c.type !== "text_delta"));
    timedOut(chunks, "first_byte_timeout");
  } finally {
    await server.close();
  }
});

Deno.test("watchdog: after content, pings forever end the call with an idle timeout", async () => {
  const server = serve([() => repeating(START + TEXT, PING, 20)]);
  try {
    const chunks = await callEnds(server.url, { idleTimeoutMs: 300 });
    assert.ok(chunks.some((c) => c.type === "text_delta"), "content came");
    timedOut(chunks, "idle_timeout");
  } finally {
    await server.close();
  }
});

Deno.test("watchdog: an endless response ends at the size bound, memory bounded", async () => {
  const filler = `: ${"x".repeat(4000)}\n\n`;
  const server = serve([() => repeating(START + TEXT, filler, 1)]);
  try {
    const chunks = await callEnds(
      server.url,
      { maxResponseBytes: 256 * 1024 },
      20_000,
    );
    const error = lastError(chunks);
    assert.equal(error.code, "response_too_large");
    assert.equal(error.kind, "transport");
  } finally {
    await server.close();
  }
});

Deno.test("watchdog: the OpenAI adapter has the same first-byte timeout", async () => {
  const server = silentServer();
  try {
    const provider = openaiAt(server.url, { firstByteTimeoutMs: 200 });
    const chunks = await within(
      collect(
        provider.stream(ask("gpt-5.4-mini"), "sk-PLANTEDopenai0123456789"),
      ),
      10_000,
      "the call to end",
    );
    timedOut(chunks, "first_byte_timeout");
  } finally {
    server.close();
  }
});

Deno.test("watchdog: bad bounds are refused when the provider is created", () => {
  assert.throws(
    () => anthropic("http://127.0.0.1:1", { firstByteTimeoutMs: 0 }),
    /firstByteTimeoutMs must be a positive integer/,
  );
  assert.throws(
    () => anthropic("http://127.0.0.1:1", { idleTimeoutMs: 1.5 }),
    /idleTimeoutMs must be a positive integer/,
  );
});

Deno.test("watchdog: 200 aborted calls against a silent server all end, and the server sees every connection close", async () => {
  const server = silentServer();
  const provider = anthropic(server.url, {});
  try {
    for (let batch = 0; batch < 10; batch++) {
      const calls = Array.from({ length: 20 }, async () => {
        const controller = new AbortController();
        const before = server.accepted();
        const run = collect(
          provider.stream(
            { ...ask("claude-sonnet-4-6"), signal: controller.signal },
            KEY,
          ),
        );
        await until(() => server.accepted() > before, 5_000, "accept");
        controller.abort();
        const chunks = await within(run, 5_000, "an aborted call to end");
        assert.equal(lastError(chunks).kind, "cancelled");
      });
      await Promise.all(calls);
    }
    await until(() => server.accepted() >= 200, 5_000, "200 connections");
    await until(
      () => server.closed() === server.accepted(),
      10_000,
      "every connection closed",
    );
    assert.equal(server.closed(), server.accepted());
  } finally {
    server.close();
  }
});

async function chainRun(provider: LlmProvider) {
  const reports: AttemptReport[] = [];
  const chain = createChain({
    plan: [{ provider, model: "claude-sonnet-4-6", maxAttempts: 3 }],
    keyFor: () => KEY,
    sleep: () => Promise.resolve(),
    onAttempt: (r) => reports.push(r),
  });
  const events: ChainEvent[] = [];
  for await (
    const e of chain.stream(
      ask("claude-sonnet-4-6"),
      new AbortController().signal,
    )
  ) {
    events.push(e);
    if (events.length > 1000) throw new Error("chain did not end");
  }
  return { events, reports };
}

Deno.test("watchdog: a first-byte timeout before any content is retried by the chain, and the next attempt serves", async () => {
  const stalled = () =>
    new Response(new ReadableStream<Uint8Array>(), {
      headers: { "content-type": "text/event-stream" },
    });
  const server = serve([
    stalled,
    () => repeating(START + TEXT + END, "", 1_000_000),
  ]);
  try {
    const { events, reports } = await within(
      chainRun(anthropic(server.url, { firstByteTimeoutMs: 200 })),
      10_000,
      "the chain to end",
    );
    assert.deepEqual(reports.map((r) => [r.outcome, r.error?.code]), [
      ["failed", "first_byte_timeout"],
      ["succeeded", undefined],
    ]);
    const last = events[events.length - 1];
    assert.ok(last?.type === "done" && last.attemptNumber === 2);
    assert.equal(server.requests.length, 2);
  } finally {
    await server.close();
  }
});

Deno.test("watchdog: an idle timeout after content ends the turn with the error, never a second request", async () => {
  const server = serve([() => repeating(START + TEXT, PING, 20)]);
  try {
    const { events } = await within(
      chainRun(anthropic(server.url, { idleTimeoutMs: 250 })),
      10_000,
      "the chain to end",
    );
    const last = events[events.length - 1];
    assert.ok(last?.type === "failed", JSON.stringify(last));
    assert.equal(last.error?.code, "idle_timeout");
    assert.equal(server.requests.length, 1);
  } finally {
    await server.close();
  }
});

/** A body that sends `TEXT` every `everyMs` for `count` times, then ends. */
function steady(count: number, everyMs: number): Response {
  let sent = 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  return new Response(
    new ReadableStream<Uint8Array>({
      start(controller): void {
        controller.enqueue(enc.encode(START));
        timer = setInterval(() => {
          sent++;
          try {
            controller.enqueue(enc.encode(sent < count ? TEXT : TEXT + END));
            if (sent >= count) {
              clearInterval(timer);
              controller.close();
            }
          } catch {
            clearInterval(timer);
          }
        }, everyMs);
      },
      cancel(): void {
        clearInterval(timer);
      },
    }),
    { headers: { "content-type": "text/event-stream" } },
  );
}

Deno.test("watchdog: content arriving more often than the idle timeout keeps the call alive well past it", async () => {
  // 12 contents 40 ms apart span ~480 ms, four times the 120 ms idle timeout.
  const server = serve([() => steady(12, 40)]);
  try {
    const chunks = await callEnds(server.url, {
      idleTimeoutMs: 120,
      firstByteTimeoutMs: 1_000,
    });
    const last = chunks[chunks.length - 1];
    assert.equal(last?.type, "stop", JSON.stringify(last));
    assert.equal(chunks.filter((c) => c.type === "text_delta").length, 12);
  } finally {
    await server.close();
  }
});

Deno.test("watchdog: a transport that ignores the abort signal still ends at the idle timeout and on abort", async () => {
  let cancels = 0;
  // A fetch of our own that never looks at the signal: its body sends one
  // content and then nothing, and only the reader's cancel ends it.
  const deaf = (): Promise<Response> =>
    Promise.resolve(
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller): void {
            controller.enqueue(enc.encode(START + TEXT));
          },
          cancel(): void {
            cancels++;
          },
        }),
        { headers: { "content-type": "text/event-stream" } },
      ),
    );
  const provider = anthropicAt("http://127.0.0.1:9", {
    fetch: deaf,
    idleTimeoutMs: 150,
  });
  const timedOut = await within(
    collect(provider.stream(ask("claude-sonnet-4-6"), KEY)),
    10_000,
    "the idle timeout",
  );
  assert.equal(lastError(timedOut).code, "idle_timeout");
  const abort = new AbortController();
  const pending = within(
    collect(
      provider.stream(
        { ...ask("claude-sonnet-4-6"), signal: abort.signal },
        KEY,
      ),
    ),
    10_000,
    "the abort",
  );
  setTimeout(() => abort.abort(), 50);
  const aborted = await pending;
  assert.equal(lastError(aborted).kind, "cancelled");
  assert.equal(cancels, 2, "each body was cancelled");
});
