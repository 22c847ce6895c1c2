/**
 * Engine overhead: turns per second with an instant scripted provider, in
 * memory and persisted to SQLite, and a bare node:sqlite transaction
 * writing the same rows for comparison.
 *
 *   deno bench --allow-read --allow-write bench/session_bench.ts
 */
import { openSession } from "../host/host.ts";
import type { StreamChunk } from "../llm/chunk.ts";
import type { LlmProvider } from "../llm/provider.ts";
import { AgentSession } from "../session/session.ts";
import { openBareTurn } from "./_bare_turn.ts";
import {
  benchDeps,
  benchRuntime,
  completedTurn,
  instantProvider,
} from "./_bench_util.ts";
import { createMemoryStore } from "../store/memory_store.ts";
import { openSqliteStore } from "../store/sqlite_store.ts";

const AGENT = {
  id: "bench",
  model: "gpt-5.4-mini",
  provider: "openai",
  system_prompt: "You help.",
  // Requests carry only the pending message, so each iteration does the
  // same work however many turns the session already holds.
  memory: { type: "none" as const },
};
const CONTEXT = { workingDir: "/work", fsScopeTier: "sandboxed" as const };
const REPLY: StreamChunk[] = [
  { type: "text_delta", text: "An answer of a few words." },
  {
    type: "stop",
    stopReason: "stop",
    usage: { inputTokens: 20, outputTokens: 6 },
  },
];
let n = 0;
const clock = { now: () => 1_700_000_000_000 + n };
const ids = () => `id-${n++}`;
/** Answers every call instantly with the same reply (no recording). */
const provider: LlmProvider = instantProvider("openai", () => REPLY);

const dir = Deno.makeTempDirSync();
// No catalog, as the engine-only turn: the same work in every row.
const runtime = benchRuntime(clock, ids, provider);

Deno.bench(
  "turn, engine only (no store)",
  { group: "turn", baseline: true },
  async (b) => {
    const session = new AgentSession({
      sessionId: "s",
      agentRef: "bench",
      agent: AGENT,
      context: CONTEXT,
      ...benchDeps(provider, { clock, ids }),
    });
    session.start();
    b.start();
    const result = await session.sendMessage("A short question?");
    b.end();
    await completedTurn(result);
  },
);

const memLive = openSession({
  store: createMemoryStore(),
  runtime,
  agent: AGENT,
  context: CONTEXT,
  settings: { maxTurns: 1_000_000 },
});
Deno.bench(
  "turn, persisted to the memory store",
  { group: "turn" },
  async () => {
    await completedTurn(memLive.session.sendMessage("A short question?"));
  },
);

const sqliteStore = openSqliteStore(`${dir}/history.db`, { clock, ids });
const sqlLive = openSession({
  store: sqliteStore,
  runtime,
  agent: AGENT,
  context: CONTEXT,
  settings: { maxTurns: 1_000_000 },
});
// The SQLite turn and the bare transactions it is compared with warm up
// for 1,500 iterations: the turn's time falls for over a thousand turns
// while the JIT compiles its code, and the default warm-up would measure
// that instead of a long chat's steady state.
const WARMUP = 1_500;
Deno.bench(
  "turn, persisted to SQLite (synchronous=FULL)",
  { group: "turn", warmup: WARMUP },
  async () => {
    await completedTurn(sqlLive.session.sendMessage("A short question?"));
  },
);

// Bare node:sqlite transactions on the same schema and pragmas
// (bench/_bare_turn.ts): one writing every row the persisted turn writes;
// one writing the turn's rows as they were before usage coverage (two
// messages, the session row, one cost upsert); and those rows as the
// persisted turn writes them, the call journaled in a commit of its own.
const bare = openBareTurn(
  `${dir}/history.db`,
  sqlLive.sessionId,
  ids,
  clock.now,
);
Deno.bench("bare node:sqlite transaction writing the same rows", {
  group: "turn",
  warmup: WARMUP,
}, () => bare.sameRows());
Deno.bench(
  "bare node:sqlite transaction: the turn's rows before usage coverage",
  { group: "turn", warmup: WARMUP },
  () => bare.turn(),
);
Deno.bench(
  "bare node:sqlite: pending row, then the turn's rows with it recorded",
  { group: "turn", warmup: WARMUP },
  () => bare.turnWithCoverage(),
);
