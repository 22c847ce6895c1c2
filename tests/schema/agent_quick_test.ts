import assert from "node:assert/strict";
import { agentSchema, parseAgent } from "../../schema/agent.ts";
import { QUICK_AGENT_KEYS, quickParseAgent } from "../../schema/agent_quick.ts";
import { mutations } from "./_mutations.ts";

const HANDLED = new Set(QUICK_AGENT_KEYS);

const BASES: unknown[] = [
  { id: "a", model: "m", provider: "openai", system_prompt: "s" },
  {
    // keys out of schema order, to check the output's order
    tools: ["read_file", "list_directory"],
    system_prompt: "Help with {{ctx.area}}.",
    id: "code-helper",
    name: "Code helper",
    description: "",
    model: "claude-sonnet-4-6",
    provider: "anthropic",
    temperature: 2,
    max_tokens: 1024,
    reasoning_effort: "max",
    memory: { type: "window", window_size: 6 },
    fallback_chain: [
      { model: "gpt-4o", provider: "openai", max_attempts: 10 },
      { model: "claude-sonnet-4-6", provider: "other", max_attempts: 1 },
    ],
  },
  {
    id: "b-2",
    model: "x",
    provider: "deep-seek",
    system_prompt: "{{ secret.x }}",
    memory: { type: "summary" },
    fallback_chain: [],
    tools: [],
  },
];

Deno.test("quickParseAgent() returns parseAgent()'s value, or undefined", () => {
  let quick = 0;
  let slow = 0;
  for (const base of BASES) {
    for (const doc of mutations(base)) {
      const full = agentSchema.safeParse(doc);
      const fast = quickParseAgent(doc);
      const handled = typeof doc === "object" && doc !== null &&
        !Array.isArray(doc) && Object.keys(doc).every((k) => HANDLED.has(k));
      if (fast === undefined) {
        // Only a document outside the common shape may fall back while valid.
        assert.ok(!full.success || !handled, JSON.stringify(doc));
        slow++;
        continue;
      }
      quick++;
      assert.ok(full.success, JSON.stringify(doc));
      // Same value, same key order (the agent is stored as JSON).
      assert.equal(JSON.stringify(fast), JSON.stringify(full.data));
    }
  }
  assert.ok(quick > 50 && slow > 500, `${quick}/${slow}`);
});

Deno.test("quickParseAgent() leaves the rarer fields to parseAgent()", () => {
  const base = { id: "a", model: "m", provider: "openai", system_prompt: "s" };
  for (
    const extra of [
      { retry: { max: 1, backoff: "linear" } },
      { mcp_servers: [] },
      { input_schema: {} },
      { output_schema: {} },
    ]
  ) {
    const doc = { ...base, ...extra };
    assert.equal(quickParseAgent(doc), undefined);
    assert.equal(parseAgent(doc, "a.agent.yaml").ok, true);
  }
});
