/**
 * A writer killed with SIGKILL mid-commit leaves no partial turn: every
 * turn is whole (user row … terminal assistant row), the file passes
 * `integrity_check`, and the session loads.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { projectStructure } from "../../store/projection.ts";
import { openSqliteStore } from "../../store/sqlite_store.ts";
import { deps, fileWithSession, tempDir } from "./_harness.ts";

const CHILD = new URL("./_fixtures/commit_loop.ts", import.meta.url);
const ROOT = new URL("../../", import.meta.url);
/** Rows per turn the child writes: user + 8 × (calls, results) + terminal. */
const ROWS_PER_TURN = 18;

/**
 * Runs the child until it reports `target` commits (or, with `hang`, until
 * it reports being inside the next commit's transaction), then SIGKILLs it.
 */
async function commitThenKill(
  path: string,
  prefix: string,
  target: number,
  hang = false,
): Promise<number> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--allow-read",
      "--allow-write",
      CHILD.pathname,
      path,
      "s1",
      prefix,
      hang ? String(target + 1) : "0",
    ],
    cwd: ROOT.pathname,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  let reported = 0;
  let inside = false;
  const finished = () => hang ? inside : reported >= target;
  for (let reads = 0; reads < 100_000 && !finished(); reads++) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered += value;
    const lines = buffered.split("\n");
    buffered = lines.pop() ?? "";
    for (const line of lines) {
      if (line === "inside") inside = true;
      else reported = Number(line);
    }
  }
  if (hang && inside) assertWriteLocked(path);
  child.kill("SIGKILL");
  await reader.cancel();
  const stderr = await new Response(child.stderr).text();
  const status = await child.status;
  assert.equal(reported >= target, true, `child stopped early: ${stderr}`);
  assert.equal(status.signal, "SIGKILL");
  return reported;
}

/** Proves the child holds the write lock: it is mid-transaction. */
function assertWriteLocked(path: string): void {
  const probe = new DatabaseSync(path);
  probe.exec("PRAGMA busy_timeout = 0");
  assert.throws(() => probe.exec("BEGIN IMMEDIATE"), /database is locked/);
  probe.close();
}

function checkWhole(path: string, minTurns: number): number {
  const raw = new DatabaseSync(path);
  assert.deepEqual(
    raw.prepare("PRAGMA integrity_check").all().map((r) =>
      r["integrity_check"]
    ),
    ["ok"],
  );
  assert.deepEqual(raw.prepare("PRAGMA foreign_key_check").all(), []);
  const totals = raw.prepare(
    `SELECT total_input_tokens AS input, total_cost_microcents AS cost,
     (SELECT SUM(cost_microcents) FROM session_costs) AS sum
     FROM agent_sessions WHERE id = 's1'`,
  ).get();
  raw.close();

  const store = openSqliteStore(path, deps("check"));
  const loaded = store.load("s1");
  store.close();
  assert.ok(loaded);
  const rows = loaded.messages;
  const projection = projectStructure(rows, { honourBoundary: false });
  const turns = projection.turns.length;
  assert.equal(rows.length, turns * ROWS_PER_TURN, "no partial turn");
  for (const t of projection.turns) {
    assert.equal(t.rows.length, ROWS_PER_TURN);
    assert.deepEqual(t.legacyPrefix, []);
  }
  assert.deepEqual(
    rows.map((m) => m.sequenceNumber),
    rows.map((_, i) => i),
  );
  assert.ok(
    turns >= minTurns,
    `lost a reported commit: ${turns} < ${minTurns}`,
  );
  assert.equal(totals?.["input"], turns * 10, "totals match whole turns");
  assert.equal(totals?.["cost"], turns * 7);
  assert.equal(totals?.["sum"], turns * 7);
  return turns;
}

Deno.test("commitTurn() killed with SIGKILL mid-commit leaves no partial turn", async () => {
  await using dir = await tempDir();
  const path = fileWithSession(dir.path, deps());
  let expected = 0;
  for (const [round, target] of [[1, 15], [2, 10], [3, 20]] as const) {
    const reported = await commitThenKill(path, `run${round}`, target);
    expected = checkWhole(path, expected + reported);
  }
});

Deno.test("commitTurn() killed inside its write transaction leaves no trace of the turn", async () => {
  await using dir = await tempDir();
  const path = fileWithSession(dir.path, deps());
  let expected = 0;
  for (const [round, target] of [[1, 3], [2, 0], [3, 5]] as const) {
    const reported = await commitThenKill(path, `hang${round}`, target, true);
    assert.equal(reported, target);
    const turns = checkWhole(path, expected + reported);
    assert.equal(turns, expected + reported, "the hung turn left nothing");
    expected = turns;
  }
});
