import assert from "node:assert/strict";
import { parseAgent } from "../../schema/agent.ts";
import { renderIssues } from "../../schema/issues.ts";

const BASE = {
  id: "code-helper",
  model: "claude-sonnet-4-6",
  provider: "anthropic",
  system_prompt: "You help. Focus on {{ctx.area}}.",
};

Deno.test("parseAgent() accepts every documented field", () => {
  const full = {
    ...BASE,
    name: "Code helper",
    description: "Helps",
    temperature: 0.2,
    max_tokens: 1024,
    reasoning_effort: "medium",
    tools: ["read_file", "list_directory"],
    memory: { type: "window", window_size: 6 },
    retry: {
      max: 3,
      backoff: "exponential",
      backoff_ms: 500,
      retry_on: ["provider_rate_limit"],
    },
    fallback_chain: [{ model: "gpt-4o", provider: "openai", max_attempts: 2 }],
    mcp_servers: [
      {
        id: "files",
        transport: "stdio",
        command: "mcp-files",
        args: ["--ro"],
        env: { TOKEN_REF: "{{secrets.x}}" },
      },
      { id: "remote", transport: "http", url: "https://mcp.example.com" },
      { ref: "github", tools_allowlist: ["search"] },
    ],
    input_schema: { type: "object" },
    output_schema: { type: "object" },
  };
  const r = parseAgent(full, "a.agent.yaml");
  assert.ok(r.ok, JSON.stringify(r));
  assert.deepEqual(r.value, full, "returned exactly as authored");
});

Deno.test("parseAgent() names the file and the key path of each problem", async (t) => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ["unknown top-level key", { ...BASE, colour: "red" }, "colour"],
    [
      "misspelt nested key",
      { ...BASE, memory: { type: "window", window: 3 } },
      "memory.window",
    ],
    [
      "missing model",
      { id: "a", provider: "openai", system_prompt: "s" },
      "model",
    ],
    ["bad id", { ...BASE, id: "Code_Helper" }, "id"],
    ["temperature above 2", { ...BASE, temperature: 2.5 }, "temperature"],
    ["non-integer max_tokens", { ...BASE, max_tokens: 1.5 }, "max_tokens"],
    ["six fallback entries", {
      ...BASE,
      fallback_chain: [1, 2, 3, 4, 5, 6].map((n) => ({
        model: `m${n}`,
        provider: "openai",
        max_attempts: 1,
      })),
    }, "fallback_chain"],
    ["max_attempts over 10", {
      ...BASE,
      fallback_chain: [{ model: "m", provider: "openai", max_attempts: 11 }],
    }, "fallback_chain[0].max_attempts"],
    [
      "retry.max over 10",
      { ...BASE, retry: { max: 11, backoff: "linear" } },
      "retry.max",
    ],
    ["repeated fallback pair", {
      ...BASE,
      fallback_chain: [
        { model: "m", provider: "openai", max_attempts: 1 },
        { model: "m", provider: "openai", max_attempts: 2 },
      ],
    }, "fallback_chain[1]"],
    ["fallback repeats the primary", {
      ...BASE,
      fallback_chain: [{
        model: BASE.model,
        provider: BASE.provider,
        max_attempts: 1,
      }],
    }, "fallback_chain[0]"],
    ["secret in system_prompt", {
      ...BASE,
      system_prompt: "key: {{ secrets.API }}",
    }, "system_prompt"],
    ["empty tool id", { ...BASE, tools: [""] }, "tools[0]"],
    [
      "window without size",
      { ...BASE, memory: { type: "window" } },
      "memory.window_size",
    ],
    ["stdio with url", {
      ...BASE,
      mcp_servers: [{
        id: "x",
        transport: "stdio",
        command: "c",
        url: "https://a",
      }],
    }, "mcp_servers[0].url"],
    ["stdio env PATH", {
      ...BASE,
      mcp_servers: [{
        id: "x",
        transport: "stdio",
        command: "c",
        env: { PATH: "/x" },
      }],
    }, "mcp_servers[0].env.PATH"],
    ["http with credentials", {
      ...BASE,
      mcp_servers: [{ id: "x", transport: "http", url: "https://u:p@a.io" }],
    }, "mcp_servers[0].url"],
  ];
  for (const [name, value, path] of cases) {
    await t.step(name, () => {
      const r = parseAgent(value, "agents/x.agent.yaml");
      assert.equal(r.ok, false);
      if (r.ok) return;
      assert.equal(r.error.source, "agents/x.agent.yaml");
      const paths = r.error.issues.map((i) => i.path);
      assert.ok(
        paths.includes(path),
        `${name}: ${JSON.stringify(r.error.issues)}`,
      );
      assert.match(
        renderIssues(r.error.source, r.error.issues),
        /^agents\/x\.agent\.yaml: /,
      );
    });
  }
});

Deno.test("parseAgent() refuses a document that is not a single mapping", () => {
  for (const v of [null, [], "text", 3]) {
    const r = parseAgent(v, "x.yaml");
    assert.equal(r.ok, false);
  }
});
