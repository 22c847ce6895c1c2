import assert from "node:assert/strict";
import { createScriptedProvider, type LlmProvider } from "../../llm/mod.ts";
import { resolvePlan } from "../../llm/plan.ts";

const openai = createScriptedProvider({ id: "openai", script: [] });
const anthropic = createScriptedProvider({ id: "anthropic", script: [] });
function wired(id: string): LlmProvider | undefined {
  return id === "openai" ? openai : id === "anthropic" ? anthropic : undefined;
}

Deno.test("resolvePlan() gives the primary 3 attempts and each fallback its own", () => {
  const r = resolvePlan({
    provider: "openai",
    model: "gpt-5.4-mini",
    fallback_chain: [
      { provider: "anthropic", model: "claude-haiku-4-5", max_attempts: 2 },
      { provider: "openai", model: "gpt-4.1", max_attempts: 1 },
    ],
  }, wired);
  assert.ok(r.ok);
  assert.deepEqual(
    r.value.map((e) => [e.provider.id, e.model, e.maxAttempts]),
    [
      ["openai", "gpt-5.4-mini", 3],
      ["anthropic", "claude-haiku-4-5", 2],
      ["openai", "gpt-4.1", 1],
    ],
  );
  assert.equal(r.value[0]?.provider, openai);
});

Deno.test("resolvePlan() fails on the first unwired provider", async (t) => {
  await t.step("primary", () => {
    assert.deepEqual(resolvePlan({ provider: "gemini", model: "g" }, wired), {
      ok: false,
      error: {
        providerId: "gemini",
        message: "Cannot resolve provider: gemini is not configured",
      },
    });
  });
  await t.step("fallback", () => {
    const r = resolvePlan({
      provider: "openai",
      model: "m",
      fallback_chain: [{
        provider: "deepseek",
        model: "deepseek-chat",
        max_attempts: 1,
      }],
    }, wired);
    assert.equal(r.ok ? undefined : r.error.providerId, "deepseek");
  });
});
