/**
 * `LlmProvider.estimateTokens`: when the first attemptable entry's
 * provider counts tokens, window measurement uses its count (pre-send and
 * after-turn); a throw, a rejection or a count that is not a finite
 * number ≥ 0 falls back to the heuristic; the count is raced with the
 * turn's abort signal, so an abort or a cancel while it counts ends the
 * turn before any egress.
 */
import assert from "node:assert/strict";
import type { LlmMessage, LlmProvider } from "../../llm/provider.ts";
import { filler, routedProvider } from "./_ctx.ts";
import { harness } from "./_harness.ts";

type Estimator = NonNullable<LlmProvider["estimateTokens"]>;

/** Short turns: only a count that says they are long compacts them. */
const SHORT = ["short 1", "short 2", "short 3"];
/** Long turns: the heuristic compacts before the fourth is sent. */
const LONG = [
  filler("one", 12_000),
  filler("two", 12_000),
  "small",
  filler("pending", 1000),
];

/** Turns over a 10,000-token window; a later one may compact first. */
async function turns(
  estimate: Estimator | undefined,
  texts: string[],
  afterTurn = false,
) {
  const p = routedProvider({ window: 10_000 });
  const seen: { model: string; messages: readonly LlmMessage[] }[] = [];
  const provider: LlmProvider = estimate === undefined ? p : {
    ...p,
    stream: (req, key) => p.stream(req, key),
    estimateTokens: (input, signal) => {
      seen.push({ model: input.model, messages: input.messages });
      return estimate(input, signal);
    },
  };
  const h = harness({
    script: [],
    provider,
    deps: { afterTurnCompaction: afterTurn },
  });
  for (const text of texts) await h.session.sendMessage(text);
  const compacted = h.events.filter((e) => e.type === "session:compacted");
  return { p, h, seen, compacted };
}

Deno.test("sendMessage(): the provider's count decides the pre-send trigger", async () => {
  const control = await turns(undefined, SHORT);
  assert.equal(
    control.compacted.length,
    0,
    "the heuristic sees a tiny request",
  );
  const big = await turns(() => 9_500, SHORT);
  assert.equal(big.compacted.length, 1, "the provider's count triggers");
  assert.equal(big.seen[0]?.model, "gpt-5.4-mini");
  const last = big.seen.at(-1)?.messages;
  assert.ok(last !== undefined && Object.isFrozen(last[0]), "a frozen request");
  const async = await turns(() => Promise.resolve(9_500), SHORT);
  assert.equal(async.compacted.length, 1, "a promised count counts too");
  const small = await turns(() => 10, LONG);
  assert.equal(small.compacted.length, 0, "a small count holds it back");
});

Deno.test("sendMessage(): the provider's count decides the after-turn trigger", async () => {
  assert.equal((await turns(undefined, SHORT, true)).compacted.length, 0);
  const { compacted } = await turns(() => 9_500, SHORT, true);
  assert.ok(compacted.length > 0);
  assert.ok(
    compacted[0]?.type === "session:compacted" &&
      compacted[0].reason === "auto-threshold",
  );
});

Deno.test("sendMessage(): a count that fails falls back to the heuristic", async (t) => {
  const rows: [string, Estimator][] = [
    ["throws", () => {
      throw new Error("no tokenizer");
    }],
    ["rejects", () => Promise.reject(new Error("offline"))],
    ["NaN", () => NaN],
    ["negative", () => -1],
    ["Infinity", () => Infinity],
  ];
  const heuristic = await turns(undefined, LONG);
  assert.equal(heuristic.compacted.length, 1);
  for (const [label, estimate] of rows) {
    await t.step(label, async () => {
      const r = await turns(estimate, LONG);
      assert.equal(r.compacted.length, 1);
      assert.ok(r.seen.length > 0, "the provider was asked");
      assert.deepEqual(
        r.h.events.map((e) => e.type).filter((x) => x.endsWith("failed")),
        [],
      );
    });
  }
});

Deno.test("sendMessage(): abort or cancel while the provider counts ends the turn before any egress", async (t) => {
  for (const how of ["abort", "cancel"] as const) {
    await t.step(how, async () => {
      const p = routedProvider({ window: 10_000 });
      let counting: AbortSignal | undefined;
      const h = harness({
        script: [],
        provider: {
          ...p,
          stream: (req, key) => p.stream(req, key),
          estimateTokens: (_input, signal) => {
            counting = signal;
            return new Promise<number>(() => {});
          },
        },
      });
      const turn = h.session.sendMessage("hi");
      for (let i = 0; i < 100 && counting === undefined; i++) {
        await Promise.resolve();
      }
      assert.ok(counting !== undefined, "the provider was asked to count");
      if (how === "abort") h.session.abort();
      else h.session.cancel();
      const r = await turn;
      assert.equal(r.kind, how === "abort" ? "aborted" : "cancelled");
      assert.equal(counting.aborted, true, "its signal aborted");
      assert.equal(p.all.length, 0, "no request left");
    });
  }
});
