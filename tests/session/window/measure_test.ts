import assert from "node:assert/strict";
import { estimateTokens } from "../../../llm/estimate.ts";
import type { ToolDef } from "../../../llm/provider.ts";
import type { AgentMemory } from "../../../schema/agent.ts";
import type { TurnSpan, WorkingMessage } from "../../../schema/resume.ts";
import { createScriptedProvider } from "../../../llm/scripted_provider.ts";
import {
  attemptableEntries,
  authoritativeWindow,
  compactionTrigger,
  outputReservation,
  summariserBound,
} from "../../../session/window/measure.ts";
import {
  estimateProjection,
  projectHistory,
} from "../../../session/window/projection.ts";

/** A deterministic pseudo-random sequence. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function randomTranscript(
  r: () => number,
): { messages: WorkingMessage[]; spans: TurnSpan[] } {
  const messages: WorkingMessage[] = [];
  const spans: TurnSpan[] = [];
  const n = Math.floor(r() * 12);
  const text = () =>
    "ab😀\n".repeat(Math.floor(r() * 5)).slice(0, Math.floor(r() * 20));
  for (let i = 0; i < n; i++) {
    if (r() < 0.2) {
      // legacy text, sometimes with two parts
      const parts = r() < 0.5 ? 1 : 2;
      messages.push({
        role: "user",
        content: Array.from(
          { length: parts },
          () => ({ type: "text", text: text() }),
        ),
      });
      continue;
    }
    const start = messages.length;
    messages.push({ role: "user", content: [{ type: "text", text: text() }] });
    if (r() < 0.8) {
      messages.push({
        role: "assistant",
        content: [{ type: "text", text: text() }],
      });
    }
    spans.push({ start, end: messages.length });
  }
  return { messages, spans };
}

Deno.test("estimateProjection() equals estimateTokens() of projectHistory() (500 random cases)", () => {
  const r = rng(7);
  const memories: Array<AgentMemory | undefined> = [
    undefined,
    { type: "none" },
    { type: "summary" },
    { type: "window", window_size: 1 },
    { type: "window", window_size: 3 },
  ];
  const tools: ToolDef[] = [{
    name: "read_file",
    description: "Reads a file",
    parameters: { type: "object", properties: { path: { type: "string" } } },
  }];
  for (let i = 0; i < 500; i++) {
    const { messages, spans } = randomTranscript(r);
    const memory = memories[i % memories.length];
    const input = {
      ...(memory === undefined ? {} : { memory }),
      messages,
      spans,
      ...(r() < 0.5 ? { summary: r() < 0.2 ? "" : "a summary" } : {}),
      ...(r() < 0.7 ? { pending: "pending?" } : {}),
    };
    const system = r() < 0.5 ? "You help." : "";
    const withTools = r() < 0.5 ? tools : [];
    assert.equal(
      estimateProjection({ ...input, system, tools: withTools }),
      estimateTokens({
        system,
        messages: projectHistory(input),
        tools: withTools,
      }),
      JSON.stringify({ input, system }),
    );
  }
});

Deno.test("measure helpers: windows, reservation, trigger, bound", () => {
  const known = createScriptedProvider({ script: [], contextWindow: 9_000 });
  const unknown = createScriptedProvider({ script: [] });
  const weird = createScriptedProvider({ script: [], contextWindow: Infinity });
  assert.equal(authoritativeWindow(known, "m"), 9_000);
  assert.equal(authoritativeWindow(unknown, "m"), undefined);
  assert.equal(authoritativeWindow(weird, "m"), undefined);
  assert.equal(
    authoritativeWindow({ ...known, managesOwnContext: () => true }, "m"),
    undefined,
  );
  assert.equal(outputReservation({ kind: "anthropic", maxTokens: 100 }), 100);
  assert.equal(outputReservation({ kind: "openai-compatible" }), 4096);
  assert.equal(
    compactionTrigger({
      tokens: 800,
      window: 1000,
      reservation: 0,
      threshold: 0.8,
    }),
    undefined,
    "strictly greater than threshold × window",
  );
  assert.equal(
    compactionTrigger({
      tokens: 600,
      window: 1000,
      reservation: 400,
      threshold: 1,
    }),
    undefined,
    "input + reservation may equal the window",
  );
  const noStream = createScriptedProvider({
    script: [],
    supports: { streaming: false },
  });
  const plan = [
    { provider: noStream, model: "a", maxAttempts: 1 },
    { provider: known, model: "b", maxAttempts: 1 },
  ];
  assert.deepEqual(attemptableEntries(plan, false).map((e) => e.model), ["b"]);
  assert.deepEqual(summariserBound(plan, false), {
    bound: 9_000 - 4096,
    windowUnknown: false,
  });
  assert.deepEqual(
    summariserBound([...plan, {
      provider: unknown,
      model: "c",
      maxAttempts: 1,
    }], true),
    { bound: 9_000 - 4096, windowUnknown: true },
  );
  assert.equal(
    summariserBound([{ provider: noStream, model: "a", maxAttempts: 1 }], true),
    undefined,
  );
});
