/**
 * Engine overhead: turns per second with an instant scripted provider, in
 * memory and persisted to SQLite, and a bare node:sqlite transaction
 * writing the same rows for comparison.
 *
 *   deno bench --allow-read --allow-write bench/session_bench.ts
 */
import { DatabaseSync } from "node:sqlite";
import { openSession } from "../host/host.ts";
import type { SessionRuntime } from "../host/runtime.ts";
import type { StreamChunk } from "../llm/chunk.ts";
import type { LlmProvider } from "../llm/provider.ts";
import { AgentSession } from "../session/session.ts";
import { benchDeps, instantProvider } from "./_bench_util.ts";
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
const runtime: SessionRuntime = {
  clock,
  ids,
  sleep: () => Promise.resolve(),
  fetch: () => Promise.reject(new Error("offline bench")),
  catalog: { lookup: () => undefined },
  keyFor: () => "",
  workingDir: "/work",
  resolveProvider: () => provider,
};

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
    await session.sendMessage("A short question?");
    b.end();
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
    await memLive.session.sendMessage("A short question?");
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
Deno.bench(
  "turn, persisted to SQLite (synchronous=FULL)",
  { group: "turn" },
  async () => {
    await sqlLive.session.sendMessage("A short question?");
  },
);

// A bare node:sqlite transaction writing the same rows (two messages, the
// session row update, one cost upsert) on the same schema and pragmas.
const bare = new DatabaseSync(`${dir}/history.db`);
bare.exec(
  "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA busy_timeout=5000",
);
const sid = sqlLive.sessionId;
const insMsg = bare.prepare(
  "INSERT INTO session_messages (id, session_id, sequence_number, role, content_parts, model_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
);
const maxSeq = bare.prepare(
  "SELECT COALESCE(MAX(sequence_number), -1) AS m FROM session_messages WHERE session_id = ?",
);
const updSession = bare.prepare(
  "UPDATE agent_sessions SET total_input_tokens = total_input_tokens + ?, total_output_tokens = total_output_tokens + ?, total_cost_microcents = total_cost_microcents + ?, status = 'active', updated_at = ? WHERE id = ?",
);
const upsertCost = bare.prepare(
  "INSERT INTO session_costs (id, session_id, model, input_tokens, output_tokens, cost_microcents, call_count, unpriced_calls, created_at, updated_at, is_legacy) VALUES (?, ?, ?, ?, ?, ?, 1, 0, ?, ?, 0) ON CONFLICT (session_id, model, is_legacy) DO UPDATE SET input_tokens = input_tokens + excluded.input_tokens, output_tokens = output_tokens + excluded.output_tokens, cost_microcents = cost_microcents + excluded.cost_microcents, call_count = call_count + 1, updated_at = excluded.updated_at",
);
/** The turn's rows as `commitTurn` writes them, in the caller's transaction. */
function writeTurnRows(t: number): void {
  const row = maxSeq.get(sid) as { m: number };
  insMsg.run(
    ids(),
    sid,
    row.m + 1,
    "user",
    '[{"type":"text","text":"A short question?"}]',
    null,
    t,
  );
  insMsg.run(
    ids(),
    sid,
    row.m + 2,
    "assistant",
    '[{"type":"text","text":"An answer of a few words."}]',
    "gpt-5.4-mini",
    t,
  );
  updSession.run(20, 6, 4200, t, sid);
  upsertCost.run(ids(), sid, "gpt-5.4-mini", 20, 6, 4200, t, t);
}

Deno.bench("bare node:sqlite transaction writing the same rows", {
  group: "turn",
}, () => {
  const t = clock.now();
  bare.exec("BEGIN IMMEDIATE");
  writeTurnRows(t);
  bare.exec("COMMIT");
});

// What the contract asks of a persisted turn since usage coverage: the
// provider call journaled as pending before it leaves (its own commit,
// not waiting for the disk), then the turn's rows with the call settled in
// one full commit. The bare equivalent of that, for the second ratio.
const insPending = bare.prepare(
  "INSERT INTO relavium_invocations (id, session_id, purpose, provider, model, started_at) VALUES (?, ?, 'turn', 'openai', 'gpt-5.4-mini', ?)",
);
const settlePending = bare.prepare(
  "UPDATE relavium_invocations SET status = 'settled', coverage = 'priced', input_tokens = ?, output_tokens = ?, cost_microcents = ?, recorded = 1, settled_at = ? WHERE id = ?",
);
Deno.bench(
  "bare node:sqlite: pending row, then the turn's rows with it settled",
  {
    group: "turn",
  },
  () => {
    const t = clock.now();
    const call = ids();
    bare.exec("PRAGMA synchronous = NORMAL");
    bare.exec("BEGIN IMMEDIATE");
    insPending.run(call, sid, t);
    bare.exec("COMMIT");
    bare.exec("PRAGMA synchronous = FULL");
    bare.exec("BEGIN IMMEDIATE");
    settlePending.run(20, 6, 4200, t, call);
    writeTurnRows(t);
    bare.exec("COMMIT");
  },
);
