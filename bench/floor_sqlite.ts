/**
 * The start-up floor of a one-shot: a bare script that opens `node:sqlite`
 * and runs one query, nothing else. `agent run --fixture` is measured
 * against it (BENCHMARKS.md):
 *
 *   farm-bench -n 15 --warmup 2 --vs 'deno run --no-prompt bench/floor_sqlite.ts' -- deno run --no-prompt --allow-read --allow-env cli.ts agent run mini.agent.yaml --fixture c.json hello
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";

const db = new DatabaseSync(":memory:");
const row = db.prepare("SELECT 1 AS one").get() as { one: number };
db.close();
Deno.stdout.writeSync(
  new TextEncoder().encode(row.one === 1 ? "ok\n" : "wrong\n"),
);
