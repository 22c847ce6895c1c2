/**
 * Child process for the crash test: commits whole turns (many rows each)
 * to an existing session in a loop, printing the number of committed turns
 * after each commit, until killed (or a hard bound is reached).
 *
 * With `hangAt` > 0, turn number `hangAt` stops inside its write
 * transaction: the store draws row ids before `BEGIN IMMEDIATE` and the
 * cost row's id inside it, so the id drawn after the turn's rows prints
 * `inside` and blocks with the write lock held, rows already inserted.
 *
 * Usage: commit_loop.ts <db path> <session id> <id prefix> [hangAt]
 */
import { openSqliteStore } from "../../../store/sqlite_store.ts";
import { toolRounds } from "../_rounds.ts";

const [path, sessionId, prefix, hangArg] = Deno.args;
if (path === undefined || sessionId === undefined || prefix === undefined) {
  throw new TypeError("usage: commit_loop.ts <db> <session> <prefix> [hangAt]");
}
const hangAt = Number(hangArg ?? "0");
/** Rounds per turn: 8 rounds of 3 calls ⇒ 18 rows per turn. */
const ROUNDS = 8;
const CALLS = 3;
const ROWS = 2 + 2 * ROUNDS;
const encoder = new TextEncoder();

let ids = 0;
let idsThisTurn = 0;
let hanging = false;
let now = Date.UTC(2026, 0, 1);
const store = openSqliteStore(path, {
  clock: { now: () => now++ },
  ids: () => {
    if (hanging && idsThisTurn++ === ROWS) {
      Deno.stdout.writeSync(encoder.encode("inside\n"));
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
    }
    return `${prefix}-${ids++}`;
  },
});

for (let n = 1; n <= 5000; n++) {
  const key = store.allocateTurnKey(sessionId);
  const rounds = toolRounds(key, {
    rounds: ROUNDS,
    calls: CALLS,
    argsBytes: 20,
    resultBytes: 4000,
  });
  hanging = n === hangAt;
  idsThisTurn = 0;
  store.commitTurn(sessionId, {
    userText: `turn ${prefix} ${n} ${"x".repeat(2000)}`,
    rounds,
    finalText: `answer ${n} ${"y".repeat(4000)}`,
    modelId: "gpt-5.4-mini",
    tokensUsed: { input: 10, output: 2 },
    costs: [{
      model: "gpt-5.4-mini",
      inputTokens: 10,
      outputTokens: 2,
      costMicrocents: 7,
      priced: true,
    }],
  });
  Deno.stdout.writeSync(encoder.encode(`${n}\n`));
}
store.close();
