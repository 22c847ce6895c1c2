/**
 * Store benchmarks ("## Store"):
 * - resume: `load` + `reconstructSessionState` of a 10,000-message session
 *   (target < 50 ms);
 * - commit: one `commitTurn` vs one bare `node:sqlite` transaction writing
 *   the same rows and updates on an identically configured file
 *   (target ≤ 1.5×).
 *
 * Run: deno bench --allow-read --allow-write bench/store_bench.ts
 */
import { DatabaseSync } from "node:sqlite";
import { STORE_DDL } from "../store/ddl.ts";
import { reconstructSessionState } from "../store/projection.ts";
import { openSqliteStore } from "../store/sqlite_store.ts";
import {
  buildLargeSession,
  largeTurn,
} from "../tests/store/_fixtures/large_session.ts";

const dir = Deno.makeTempDirSync({ prefix: "relavium-bench-" });
globalThis.addEventListener("unload", () => {
  Deno.removeSync(dir, { recursive: true });
});
let n = 0;
const deps = { clock: { now: () => 1_767_225_600_000 }, ids: () => `r${n++}` };

// Resume: a 10,000-message session.
const resumeStore = openSqliteStore(`${dir}/resume.db`, deps);
buildLargeSession(resumeStore, "big", 10_000);

Deno.bench({
  name: "load + reconstructSessionState, 10,000 messages",
  group: "resume",
  fn() {
    const loaded = resumeStore.load("big");
    if (loaded === undefined) throw new Error("missing session");
    const state = reconstructSessionState(loaded.record, loaded.messages);
    if (state.turnCount !== 2_500) throw new Error("wrong turn count");
  },
});

// Commit: the store vs a bare transaction writing the same rows.
const store = openSqliteStore(`${dir}/commit.db`, deps);
store.create({
  id: "s",
  agentSlug: "mini",
  context: { workingDir: "/w", fsScopeTier: "sandboxed" },
});

const bare = new DatabaseSync(`${dir}/bare.db`);
bare.exec(
  "PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON; PRAGMA cache_size = -16384",
);
for (const sql of STORE_DDL) bare.exec(sql);
bare.exec(
  `INSERT INTO agent_sessions (id, agent_slug, context_json, created_at, updated_at)
   VALUES ('s', 'mini', '{"workingDir":"/w","fsScopeTier":"sandboxed"}', 0, 0)`,
);
const q = {
  next: bare.prepare(
    "SELECT COALESCE(MAX(sequence_number), -1) + 1 AS n FROM session_messages WHERE session_id = ?",
  ),
  insert: bare.prepare(
    `INSERT INTO session_messages (id, session_id, sequence_number, role,
     content_parts, model_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  ),
  session: bare.prepare(
    `UPDATE agent_sessions SET total_input_tokens = total_input_tokens + ?,
     total_output_tokens = total_output_tokens + ?, title = COALESCE(title, ?),
     status = 'active', updated_at = ? WHERE id = ?`,
  ),
  cost: bare.prepare(
    `INSERT INTO session_costs (id, session_id, model, input_tokens,
     output_tokens, cost_microcents, call_count, unpriced_calls, created_at,
     updated_at, is_legacy) VALUES (?, ?, ?, ?, ?, ?, 1, 0, ?, ?, 0)
     ON CONFLICT (session_id, model, is_legacy) DO UPDATE SET
     input_tokens = input_tokens + excluded.input_tokens,
     output_tokens = output_tokens + excluded.output_tokens,
     cost_microcents = cost_microcents + excluded.cost_microcents,
     call_count = call_count + 1, updated_at = excluded.updated_at`,
  ),
  total: bare.prepare(
    "UPDATE agent_sessions SET total_cost_microcents = total_cost_microcents + ? WHERE id = ?",
  ),
};

let turnNo = 0;

Deno.bench({
  name: "bare node:sqlite transaction, same rows",
  group: "commit",
  baseline: true,
  fn() {
    const t = largeTurn(++turnNo);
    const round = t.rounds[0];
    const cost = t.costs[0];
    if (round === undefined || cost === undefined) throw new Error("shape");
    const now = 1_767_225_600_000;
    bare.exec("BEGIN IMMEDIATE");
    let seq = Number(q.next.get("s")?.["n"] ?? 0);
    const rows: Array<[string, string, string | null]> = [
      ["user", JSON.stringify([{ type: "text", text: t.userText }]), null],
      ["assistant", JSON.stringify(round.calls), "gpt-5.4-mini"],
      ["tool", JSON.stringify(round.results), null],
      [
        "assistant",
        JSON.stringify([{ type: "text", text: t.finalText }]),
        "gpt-5.4-mini",
      ],
    ];
    for (const [role, body, model] of rows) {
      q.insert.run(`b${n++}`, "s", seq++, role, body, model, now);
    }
    q.session.run(900, 200, "Question", now, "s");
    q.cost.run(`b${n++}`, "s", cost.model, 900, 200, 1650, now, now);
    q.total.run(1650, "s");
    bare.exec("COMMIT");
  },
});

Deno.bench({
  name: "SessionStore.commitTurn (sqlite)",
  group: "commit",
  fn() {
    store.commitTurn("s", largeTurn(++turnNo));
  },
});
