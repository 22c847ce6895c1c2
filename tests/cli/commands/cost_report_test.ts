/** The `/cost` and `chat-show` spend lines: cache reads and writes, estimated calls. */
import assert from "node:assert/strict";
import {
  costReport,
  type ShownModelCost,
} from "../../../cli/commands/cost_report.ts";

/** A model's row that used no cache and had usage for every call. */
const NO_CACHE = {
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  cacheReadMicrocents: 0,
  cacheWriteMicrocents: 0,
  usageUnknownCalls: 0,
};
const ROW: ShownModelCost = {
  model: "claude-sonnet-4-6",
  inputTokens: 10,
  outputTokens: 80,
  costMicrocents: 3_000_000,
  calls: 2,
  ...NO_CACHE,
  unpricedCalls: 0,
};

/** The report of one model: ROW with `changes` laid over. */
function report(changes: Partial<ShownModelCost>): string {
  return costReport(RECORD, [{ ...ROW, ...changes }]);
}
const RECORD = {
  totalInputTokens: 10,
  totalOutputTokens: 80,
  totalCostMicrocents: 3_000_000,
};

Deno.test("costReport() adds a cache line under a model that used the cache", () => {
  const text = report({
    cacheReadTokens: 24_000,
    cacheReadMicrocents: 720_000,
    cacheWriteTokens: 5_600,
    cacheWriteMicrocents: 2_100_000,
  });
  assert.equal(
    text,
    "Cost: $0.0300 (10 input, 80 output tokens)\n" +
      "  claude-sonnet-4-6  $0.0300  2 calls, 10 input, 80 output tokens\n" +
      "    cache: 24000 read ($0.0072), 5600 written ($0.0210)\n",
  );
  assert.ok(!costReport(RECORD, [ROW]).includes("cache:"), "none without");
});

Deno.test("costReport() says which calls sent no usage and were estimated", () => {
  const text = report({ usageUnknownCalls: 1 });
  assert.match(
    text,
    /2 calls, 10 input, 80 output tokens \(1 call sent no usage: its cost is estimated\)\n/,
  );
});

Deno.test("costReport() shows cache tokens without prices for an unpriced model", () => {
  const unpriced = { costMicrocents: 0, unpricedCalls: 2 };
  assert.match(
    report({ ...unpriced, cacheReadTokens: 50, cacheWriteTokens: 7 }),
    /\n {4}cache: 50 read, 7 written\n$/,
  );
});
