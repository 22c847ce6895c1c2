import assert from "node:assert/strict";
import { createCatalog, type ModelInfo } from "../../llm/mod.ts";
import { geminiThinking } from "../../llm/gemini/_thinking.ts";

Deno.test("createCatalog() ships the required providers' models", () => {
  const c = createCatalog();
  for (
    const id of [
      "claude-opus-4-6",
      "claude-sonnet-4-6",
      "claude-haiku-4-5",
      "gpt-5.4-mini",
      "gpt-4o",
      "gpt-4.1",
      "o3",
      "deepseek-chat",
      "deepseek-reasoner",
    ]
  ) {
    const m = c.lookup(id);
    assert.ok(m, id);
    assert.ok(
      Number.isSafeInteger(m.inputPerMtokMicrocents) &&
        m.inputPerMtokMicrocents > 0,
      id,
    );
    assert.ok(m.maxOutputTokens <= m.contextWindowTokens, id);
  }
  assert.equal(c.lookup("gpt-5.4-mini")?.inputPerMtokMicrocents, 75_000_000);
  assert.equal(c.lookup("gpt-5.4-mini")?.outputPerMtokMicrocents, 450_000_000);
});

Deno.test("createCatalog() lists unique ids with integer prices", () => {
  const all = createCatalog().list();
  assert.equal(new Set(all.map((m) => m.id)).size, all.length);
  for (const m of all) {
    for (
      const v of [
        m.inputPerMtokMicrocents,
        m.outputPerMtokMicrocents,
        m.cachedInputPerMtokMicrocents,
        m.cacheWritePerMtokMicrocents ?? 0,
      ]
    ) {
      assert.ok(Number.isSafeInteger(v) && v >= 0, m.id);
    }
  }
});

Deno.test("createCatalog() overlay adds unknown ids only", () => {
  const base: ModelInfo = {
    provider: "ollama",
    id: "qwen3",
    contextWindowTokens: 32_768,
    maxOutputTokens: 4096,
    inputPerMtokMicrocents: 0,
    outputPerMtokMicrocents: 0,
    cachedInputPerMtokMicrocents: 0,
  };
  const c = createCatalog([base, {
    ...base,
    id: "claude-sonnet-4-6",
    inputPerMtokMicrocents: 1,
  }, {
    ...base,
    id: "claude-haiku-4-5-20251001",
    inputPerMtokMicrocents: 1,
  }]);
  assert.equal(c.lookup("qwen3")?.provider, "ollama");
  assert.equal(
    c.lookup("claude-sonnet-4-6")?.inputPerMtokMicrocents,
    300_000_000,
  );
  assert.equal(
    c.lookup("claude-haiku-4-5-20251001")?.inputPerMtokMicrocents,
    100_000_000,
  );
  assert.equal(c.list().filter((m) => m.provider === "ollama").length, 1);
});

Deno.test("createCatalog() returns copies", () => {
  const c = createCatalog();
  const m = c.lookup("gpt-4o");
  assert.ok(m);
  m.inputPerMtokMicrocents = 1;
  assert.equal(c.lookup("gpt-4o")?.inputPerMtokMicrocents, 250_000_000);
});

Deno.test("B20: gemini-3.7-flash is its own model with its own thinking levels, never an alias of gemini-3.8-flash", () => {
  const c = createCatalog();
  const old = c.lookup("gemini-3.7-flash");
  const next = c.lookup("gemini-3.8-flash");
  assert.equal(old?.id, "gemini-3.7-flash");
  assert.equal(old?.displayName, "Gemini 3.7 Flash");
  assert.equal(next?.id, "gemini-3.8-flash");
  // Each from its own model page: low, medium and high; minimal refused.
  assert.deepEqual(old?.effortTiers, ["low", "medium", "high"]);
  assert.deepEqual(next?.effortTiers, ["low", "medium", "high"]);
  // The request names the model asked for and the level its row lists.
  assert.deepEqual(geminiThinking("off", old), {
    includeThoughts: true,
    thinkingLevel: "LOW",
  });
});
