/**
 * Context management: measuring the next request and
 * planning a compaction over a 10,000-message history, estimator included.
 * Target: measure + plan < 20 ms.
 *
 *   deno bench bench/compaction_bench.ts
 *   deno run bench/compaction_bench.ts   # 20 warm-up + 50 timed, one process
 *
 * History: 5,000 completed turns (10,000 working messages), ~200-character
 * questions and ~800-character answers (≈1.25M estimated tokens), on a
 * 400,000-token window: the fold takes four passes.
 */
import { split } from "../tests/_kit/session_parts.ts";
import type { StreamChunk } from "../llm/chunk.ts";
import type { LlmProvider } from "../llm/provider.ts";
import type { Agent } from "../schema/agent.ts";
import type { ResumeState, WorkingMessage } from "../schema/resume.ts";
import {
  COMPACTION_LIMITS,
  COMPACTION_SYSTEM_PROMPT,
  planPass,
  splitForCompaction,
} from "../session/window/compaction.ts";
import type { ContextState, WindowView } from "../session/window/state.ts";
import {
  compactionTrigger,
  measureNext,
  summariserBound,
} from "../session/window/measure.ts";
import { AgentSession } from "../session/session.ts";
import { instantProvider } from "./_bench_util.ts";

const WINDOW = 400_000;
const TURNS = 5_000;
const AGENT: Agent = {
  id: "bench",
  model: "gpt-5.4-mini",
  provider: "openai",
  system_prompt: "You help with code.",
};

function text(tag: string, n: number): string {
  return `${tag} ${"lorem ipsum dolor sit amet ".repeat(Math.ceil(n / 27))}`
    .slice(0, n);
}

function history(): ContextState {
  const messages: WorkingMessage[] = [];
  const spans = [];
  for (let i = 0; i < TURNS; i++) {
    const start = messages.length;
    messages.push({
      role: "user",
      content: [{ type: "text", text: text(`q${i}`, 200) }],
    });
    messages.push({
      role: "assistant",
      content: [{ type: "text", text: text(`a${i}`, 800) }],
    });
    spans.push({ start, end: start + 2 });
  }
  return { messages, spans };
}

const SUMMARY: StreamChunk[] = [
  { type: "text_delta", text: text("summary", 4000) },
  {
    type: "stop",
    stopReason: "stop",
    usage: { inputTokens: 1000, outputTokens: 1000 },
  },
];

/** Declares its window and answers every call instantly (no recording). */
const provider: LlmProvider = {
  ...instantProvider("openai", () => SUMMARY),
  contextLimit: () => WINDOW,
};

const STATE = history();
const PLAN = [{ provider, model: AGENT.model, maxAttempts: 3 }];
const VIEW: WindowView = {
  agent: AGENT,
  system: AGENT.system_prompt,
  deps: {
    clock: { now: () => 0 },
    ids: () => "x",
    resolveProvider: () => provider,
    keyFor: () => "",
    sleep: () => Promise.resolve(),
    emit: () => {},
  },
  threshold: 0.8,
  plan: PLAN,
  tools: [],
};
const RUNNING_SUMMARY = text("running summary", 4000);

/** The measured trigger over the whole history plus a pending message. */
function measure(): boolean {
  const m = measureNext(VIEW, STATE, "What next?");
  if (m === undefined) throw new Error("window not authoritative");
  return compactionTrigger(m) !== undefined;
}

/** The fold: split, bound, and every pass's request (summaries simulated). */
function plan(): number {
  const split = splitForCompaction(STATE.messages, STATE.spans);
  const bound = summariserBound(PLAN, false);
  if (split === undefined || bound === undefined) throw new Error("no plan");
  let remaining = split.foldable;
  let passes = 0;
  let prior: string | undefined;
  while (remaining.length > 0 && passes < COMPACTION_LIMITS.maxPasses) {
    const pass = planPass({
      system: COMPACTION_SYSTEM_PROMPT,
      ...(prior === undefined ? {} : { prior }),
      remaining,
      maxTokens: bound.bound,
    });
    if (pass === undefined) throw new Error("unfittable");
    remaining = remaining.slice(pass.consumed);
    prior = RUNNING_SUMMARY;
    passes++;
  }
  if (remaining.length > 0) throw new Error("did not fold in 4 passes");
  return passes;
}

const RESUME: ResumeState = {
  messages: STATE.messages,
  completedTurnSpans: STATE.spans,
  turnCount: TURNS,
  cumulativeCostMicrocents: 0,
  conservativeCostMicrocents: 0,
};

function resumed(): AgentSession {
  return AgentSession.resume({
    sessionId: "bench",
    agentRef: AGENT.id,
    agent: AGENT,
    context: { workingDir: "/work", fsScopeTier: "sandboxed" },
    ...split(VIEW.deps),
  }, RESUME);
}

if (!measure()) throw new Error("the history should trigger");
if (plan() !== 4) throw new Error("expected four passes");

Deno.bench("measure the next request (project + estimate, 10k messages)", {
  group: "compaction",
}, () => {
  measure();
});

Deno.bench("plan the fold (split + 4 passes, 10k messages)", {
  group: "compaction",
}, () => {
  plan();
});

Deno.bench("measure + plan (target < 20 ms)", {
  group: "compaction",
  baseline: true,
}, () => {
  measure();
  plan();
});

Deno.bench(
  "compact() end to end, instant summariser (resume excluded)",
  { group: "end-to-end" },
  async (b) => {
    const session = resumed();
    b.start();
    const r = await session.compact();
    b.end();
    if (r.kind !== "compacted") throw new Error(r.kind);
  },
);

if (import.meta.main) {
  const timings: Record<string, number[]> = { measure: [], plan: [], both: [] };
  for (let i = 0; i < 70; i++) {
    const t0 = performance.now();
    measure();
    const t1 = performance.now();
    plan();
    const t2 = performance.now();
    if (i < 20) continue;
    timings["measure"]?.push(t1 - t0);
    timings["plan"]?.push(t2 - t1);
    timings["both"]?.push(t2 - t0);
  }
  const lines: string[] = [];
  for (const [name, list] of Object.entries(timings)) {
    const sorted = [...list].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.floor(q * (sorted.length - 1))] ?? 0;
    lines.push(
      `${name}: median ${at(0.5).toFixed(2)} ms, min ${
        at(0).toFixed(2)
      } ms, p90 ${at(0.9).toFixed(2)} ms`,
    );
  }
  await Deno.stdout.write(new TextEncoder().encode(lines.join("\n") + "\n"));
}
