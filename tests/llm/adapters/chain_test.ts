/**
 * The real adapters under the real fallback chain and an AgentSession:
 * retry-after honoured, failover on overload, fatal kinds stop the chain,
 * and a planted key never reaches an event.
 */
import { split } from "../../_kit/session_parts.ts";
import assert from "node:assert/strict";
import { anthropicAt, openaiAt } from "./_adapters.ts";
import type { LlmProvider } from "../../../llm/mod.ts";
import {
  type AttemptReport,
  createChain,
  type PlanEntry,
} from "../../../llm/chain.ts";
import type { ChainEvent } from "../../../llm/chain_event.ts";
import { AgentSession } from "../../../session/mod.ts";
import type { SessionEventDraft } from "../../../schema/event.ts";
import { ask, fixture, http, serve, sse, type TestServer } from "./_server.ts";

const KEY = "sk-ant-api03-PLANTEDkey0123456789abcdefXYZ";

function anthropic(server: TestServer): LlmProvider {
  return anthropicAt(server.url);
}

function openai(server: TestServer): LlmProvider {
  return openaiAt(server.url);
}

async function run(
  plan: PlanEntry[],
): Promise<
  { events: ChainEvent[]; waits: number[]; reports: AttemptReport[] }
> {
  const waits: number[] = [];
  const reports: AttemptReport[] = [];
  const chain = createChain({
    plan,
    keyFor: () => KEY,
    sleep: (ms) => {
      waits.push(ms);
      return Promise.resolve();
    },
    onAttempt: (r) => reports.push(r),
  });
  const events: ChainEvent[] = [];
  for await (const e of chain.stream(ask(""), new AbortController().signal)) {
    events.push(e);
    if (events.length > 1000) throw new Error("chain did not end");
  }
  return { events, waits, reports };
}

function outcome(events: ChainEvent[]): ChainEvent | undefined {
  return events[events.length - 1];
}

Deno.test("createChain() waits the Anthropic retry-after, then succeeds", async () => {
  const server = serve([
    http(fixture("anthropic", "error_429.http")),
    sse(fixture("anthropic", "text.sse")),
  ]);
  try {
    const { events, waits, reports } = await run([{
      provider: anthropic(server),
      model: "claude-sonnet-4-6",
      maxAttempts: 3,
    }]);
    assert.deepEqual(waits, [2000]);
    const last = outcome(events);
    assert.ok(
      last?.type === "done" && last.provider === "anthropic" &&
        last.attemptNumber === 2,
    );
    assert.deepEqual(reports.map((r) => [r.outcome, r.error?.kind]), [[
      "failed",
      "rate_limit",
    ], ["succeeded", undefined]]);
    assert.equal(server.requests.length, 2);
  } finally {
    await server.close();
  }
});

Deno.test("createChain() waits the OpenAI retry-after, then succeeds", async () => {
  const server = serve([
    http(fixture("openai", "error_429.http")),
    sse(fixture("openai", "text.sse")),
  ]);
  try {
    const { events, waits } = await run([{
      provider: openai(server),
      model: "gpt-4.1",
      maxAttempts: 3,
    }]);
    assert.deepEqual(waits, [3000]);
    assert.equal(outcome(events)?.type, "done");
  } finally {
    await server.close();
  }
});

Deno.test("createChain() retries a 529 with backoff, then falls back to the next entry", async () => {
  const overloaded = http(fixture("anthropic", "error_529.http"), {
    "x-should-retry": "false",
  });
  const a = serve([overloaded, overloaded]);
  const o = serve([sse(fixture("openai", "text.sse"))]);
  try {
    const { events, waits, reports } = await run([
      { provider: anthropic(a), model: "claude-sonnet-4-6", maxAttempts: 2 },
      { provider: openai(o), model: "gpt-4.1", maxAttempts: 1 },
    ]);
    assert.deepEqual(
      waits,
      [125],
      "x-should-retry is ignored: the kind decides (half the base: no jitter at the test clock)",
    );
    const last = outcome(events);
    assert.ok(
      last?.type === "done" && last.provider === "openai" &&
        last.model === "gpt-4.1",
    );
    assert.deepEqual(reports.map((r) => `${r.provider}:${r.outcome}`), [
      "anthropic:failed",
      "anthropic:failed",
      "openai:succeeded",
    ]);
  } finally {
    await a.close();
    await o.close();
  }
});

Deno.test("createChain() falls back from an OpenAI 503 to Anthropic", async () => {
  const o = serve([http(fixture("openai", "error_503.http"))]);
  const a = serve([sse(fixture("anthropic", "text.sse"))]);
  try {
    const { events } = await run([
      { provider: openai(o), model: "gpt-4.1", maxAttempts: 1 },
      { provider: anthropic(a), model: "claude-sonnet-4-6", maxAttempts: 1 },
    ]);
    const last = outcome(events);
    assert.ok(last?.type === "done" && last.provider === "anthropic");
  } finally {
    await o.close();
    await a.close();
  }
});

Deno.test("createChain() stops at a context overflow and after a committed stream error", async () => {
  const a = serve([
    http(fixture("anthropic", "error_400_overflow.http")),
    sse(fixture("anthropic", "error_event.sse")),
  ]);
  const o = serve([]);
  try {
    const plan: PlanEntry[] = [
      { provider: anthropic(a), model: "claude-sonnet-4-6", maxAttempts: 3 },
      { provider: openai(o), model: "gpt-4.1", maxAttempts: 1 },
    ];
    const first = outcome((await run(plan)).events);
    assert.ok(
      first?.type === "failed" && first.error?.kind === "context_overflow",
    );
    const second = await run(plan);
    const last = outcome(second.events);
    assert.ok(last?.type === "failed" && last.error?.kind === "overloaded");
    assert.deepEqual(
      second.waits,
      [],
      "no retry after the first forwarded chunk",
    );
    assert.equal(o.requests.length, 0, "never failed over");
  } finally {
    await a.close();
    await o.close();
  }
});

function session(
  provider: LlmProvider,
  drafts: SessionEventDraft[],
): AgentSession {
  let n = 0;
  const s = new AgentSession({
    sessionId: "s",
    agentRef: "agent",
    agent: {
      id: "agent",
      model: "claude-sonnet-4-6",
      provider: "anthropic",
      system_prompt: "You help.",
    },
    context: { workingDir: "/work", fsScopeTier: "sandboxed" },
    ...split({
      clock: { now: () => 1_700_000_000_000 },
      ids: () => `id-${n++}`,
      resolveProvider: (id) => id === provider.id ? provider : undefined,
      keyFor: () => KEY,
      sleep: () => Promise.resolve(),
      emit: (d) => drafts.push(d),
    }),
  });
  s.start();
  return s;
}

Deno.test("AgentSession with the Anthropic adapter emits tokens and never an event carrying the key", async () => {
  const echo =
    `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key ${KEY}"}}`;
  const server = serve([
    sse(fixture("anthropic", "text.sse")),
    () => new Response(echo, { status: 401 }),
  ]);
  try {
    const drafts: SessionEventDraft[] = [];
    const s = session(anthropic(server), drafts);
    await s.sendMessage("Salut");
    await s.sendMessage("Again");
    const tokens = drafts.flatMap((d) =>
      d.type === "agent:token" ? [d.token] : []
    );
    assert.equal(tokens.join(""), "Bonjour ! Ça va très bien, merci 😊.");
    const ends = drafts.filter((d) => d.type === "session:turn_completed");
    assert.equal(ends.length, 2);
    const text = JSON.stringify(drafts);
    assert.ok(
      !text.includes(KEY) && !text.includes("PLANTED"),
      "the key never reaches an event",
    );
    assert.ok(
      text.includes("invalid x-api-key [redacted]"),
      "the provider's own text reaches the event, scrubbed of the key",
    );
    assert.ok(text.includes("provider_auth"));
  } finally {
    await server.close();
  }
});
