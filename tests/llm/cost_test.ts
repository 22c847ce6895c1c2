import assert from "node:assert/strict";
import { createCatalog, type ModelInfo } from "../../llm/mod.ts";
import { priceUsage, usdPerMtok } from "../../llm/cost.ts";

const info: ModelInfo = {
  provider: "p",
  id: "m",
  contextWindowTokens: 1000,
  maxOutputTokens: 100,
  inputPerMtokMicrocents: 300_000_000,
  outputPerMtokMicrocents: 1_500_000_000,
  cachedInputPerMtokMicrocents: 30_000_000,
  cacheWritePerMtokMicrocents: 375_000_000,
};

Deno.test("priceUsage() pins the upstream gpt-5.4-mini fixture", () => {
  const mini = createCatalog().lookup("gpt-5.4-mini");
  assert.deepEqual(priceUsage({ inputTokens: 65, outputTokens: 21 }, mini), {
    costMicrocents: 14_325,
    priced: true,
  });
});

Deno.test("priceUsage() prices each class once, rounding half up", async (t) => {
  const cases: [string, Parameters<typeof priceUsage>[0], number][] = [
    ["input only", { inputTokens: 1, outputTokens: 0 }, 300],
    ["cache read at cached rate", {
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 10,
    }, 300],
    ["cache write at its rate", {
      inputTokens: 0,
      outputTokens: 0,
      cacheWriteTokens: 2,
    }, 750],
    ["half rounds up per class", {
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 1,
    }, 30],
    ["sum of classes", {
      inputTokens: 1,
      outputTokens: 1,
      cacheReadTokens: 1,
      cacheWriteTokens: 1,
    }, 300 + 1500 + 30 + 375],
    ["reasoning and cost fields ignored", {
      inputTokens: 0,
      outputTokens: 2,
      reasoningTokens: 2,
      costMicrocents: 99,
    }, 3000],
  ];
  for (const [name, usage, want] of cases) {
    await t.step(
      name,
      () => assert.equal(priceUsage(usage, info).costMicrocents, want),
    );
  }
  await t.step("a sub-µ¢ class rounds to its own integer", () => {
    const cheap: ModelInfo = {
      ...info,
      inputPerMtokMicrocents: 1,
      outputPerMtokMicrocents: 1,
    };
    // 400000·1/1e6 = 0.4 → 0 and 600000·1/1e6 = 0.6 → 1: classes are not summed first.
    assert.equal(
      priceUsage({ inputTokens: 400_000, outputTokens: 600_000 }, cheap)
        .costMicrocents,
      1,
    );
  });
  await t.step("no cache-write rate ⇒ 0", () => {
    const { cacheWritePerMtokMicrocents: _drop, ...noWrite } = info;
    assert.equal(
      priceUsage(
        { inputTokens: 0, outputTokens: 0, cacheWriteTokens: 1000 },
        noWrite,
      ).costMicrocents,
      0,
    );
  });
  await t.step("large products stay exact", () => {
    const pricey: ModelInfo = {
      ...info,
      outputPerMtokMicrocents: 18_000_000_000,
    };
    assert.equal(
      priceUsage({ inputTokens: 0, outputTokens: 1_000_001 }, pricey)
        .costMicrocents,
      18_000_018_000,
    );
  });
});

Deno.test("priceUsage() reports unknown models as unpriced", () => {
  assert.deepEqual(
    priceUsage({ inputTokens: 1000, outputTokens: 1000 }, undefined),
    { costMicrocents: 0, priced: false },
  );
});

Deno.test("usdPerMtok() converts USD per MTok to integer µ¢", () => {
  assert.equal(usdPerMtok(4.5), 450_000_000);
  assert.equal(usdPerMtok(0.075), 7_500_000);
  assert.equal(usdPerMtok(0.005), 500_000);
});
