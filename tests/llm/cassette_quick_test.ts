import assert from "node:assert/strict";
import { parseCassette } from "../../llm/cassette.ts";
import { quickParseCassette } from "../../llm/cassette_quick.ts";
import { mutations } from "../schema/_mutations.ts";

const TEXT = [
  { type: "text_delta", text: "hi" },
  {
    type: "stop",
    stopReason: "stop",
    usage: { inputTokens: 1, outputTokens: 1 },
  },
];
const TOOL = [
  { type: "tool_call_start", id: "c1", name: "read_file" },
  { type: "tool_call_delta", id: "c1", argsJsonDelta: '{"path":"a"}' },
  { type: "tool_call_end", id: "c1" },
  {
    type: "stop",
    stopReason: "tool_use",
    usage: { inputTokens: 2, outputTokens: 3 },
  },
];

const BASES: unknown[] = [
  { schema_version: "1.0", provider: "openai", calls: [TEXT] },
  {
    schema_version: "1.1",
    provider: "anthropic",
    model: "claude-sonnet-4-6",
    strict: true,
    context_window: 8000,
    calls: [
      {
        chunks: TOOL,
        expect: {
          model: "claude-sonnet-4-6",
          lastUserIncludes: "files",
          messagesInclude: ["earlier"],
          tools: ["read_file"],
          maxTokens: 10,
        },
      },
      { chunks: TEXT, expect: { toolResultFor: "c1" } },
    ],
  },
  {
    schema_version: "1.1",
    providers: { openai: { calls: [TEXT] }, anthropic: { calls: [] } },
  },
];

Deno.test("quickParseCassette() returns parseCassette()'s cassette, or undefined when it fails", () => {
  let good = 0;
  let bad = 0;
  for (const base of BASES) {
    for (const doc of mutations(base, 5)) {
      const text = JSON.stringify(doc) ?? "null";
      const full = parseCassette(text, "c.json");
      const fast = quickParseCassette(text, "c.json");
      if (full.ok) {
        good++;
        assert.deepEqual(fast, full.value, text);
      } else {
        bad++;
        assert.equal(fast, undefined, text);
      }
    }
  }
  assert.ok(good > 100 && bad > 1000, `${good}/${bad}`);
});
