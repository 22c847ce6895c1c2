import assert from "node:assert/strict";
import { estimateTokens } from "../../llm/estimate.ts";

Deno.test("estimateTokens() follows ceil(chars/4)", async (t) => {
  await t.step(
    "empty",
    () => assert.equal(estimateTokens({ messages: [] }), 0),
  );
  await t.step(
    "system only rounds up",
    () => assert.equal(estimateTokens({ system: "abcde", messages: [] }), 2),
  );
  await t.step("8 per message + text", () => {
    assert.equal(
      estimateTokens({ messages: [{ role: "user", content: [] }] }),
      2,
    );
    assert.equal(
      estimateTokens({
        messages: [{ role: "user", content: [{ type: "text", text: "abcd" }] }],
      }),
      3,
    );
  });
  await t.step("non-text parts count their JSON", () => {
    const part = {
      type: "tool_call" as const,
      id: "c",
      name: "n",
      args: { a: 1 },
    };
    const chars = 8 + JSON.stringify(part).length;
    assert.equal(
      estimateTokens({ messages: [{ role: "assistant", content: [part] }] }),
      Math.ceil(chars / 4),
    );
  });
  await t.step("tools count their JSON", () => {
    const tool = { name: "read_file", parameters: { type: "object" } };
    assert.equal(
      estimateTokens({ messages: [], tools: [tool] }),
      Math.ceil(JSON.stringify(tool).length / 4),
    );
  });
  await t.step("unserialisable args do not throw", () => {
    const args: Record<string, unknown> = {};
    args.self = args;
    const n = estimateTokens({
      messages: [{
        role: "assistant",
        content: [{ type: "tool_call", id: "c", name: "n", args }],
      }],
    });
    assert.ok(n > 0);
  });
});
