import assert from "node:assert/strict";
import { loadedPackages, staticClosure } from "./_module_graph.ts";

const SDK = "@modelcontextprotocol/sdk";

Deno.test("--version, --help, chat-list and an agent without servers load no MCP module; an agent naming one does", async () => {
  const home = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      `${home}/a.agent.yaml`,
      "id: a\nmodel: gpt-5.4-mini\nprovider: openai\nsystem_prompt: hi\ntools: [read_file]\n",
    );
    await Deno.writeTextFile(
      `${home}/m.agent.yaml`,
      "id: m\nmodel: gpt-5.4-mini\nprovider: openai\nsystem_prompt: hi\nmcp_servers: [{ ref: calc }]\n",
    );
    await Deno.writeTextFile(
      `${home}/c.json`,
      JSON.stringify({
        schema_version: "1.1",
        provider: "openai",
        calls: [{
          chunks: [{ type: "text_delta", text: "hi" }, {
            type: "stop",
            stopReason: "stop",
            usage: { inputTokens: 1, outputTokens: 1 },
          }],
        }],
      }),
    );
    for (
      const args of [
        ["--version"],
        ["--help"],
        ["chat-list"],
        ["agent", "run", "a.agent.yaml", "--fixture", "c.json", "hi"],
      ]
    ) {
      const run = await loadedPackages(args, home);
      assert.equal(run.code, 0, args.join(" "));
      assert.ok(!run.packages.includes(SDK), args.join(" "));
    }
    // Positive control: the agent names a server, so the SDK loads (the
    // server is not configured: one warning, and the run goes on).
    const control = await loadedPackages(
      ["agent", "run", "m.agent.yaml", "--fixture", "c.json", "hi"],
      home,
    );
    assert.equal(control.code, 0);
    assert.ok(control.packages.includes(SDK), control.packages.join(","));
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("the MCP folder is reached only through a dynamic import", async () => {
  for (
    const entry of [
      "cli.ts",
      "cli/commands/agent_run.ts",
      "cli/commands/chat.ts",
      "mod.ts",
      "tools/mod.ts",
      "host/mod.ts",
    ]
  ) {
    const modules = await staticClosure(entry);
    assert.deepEqual(
      modules.filter((m) => m.includes("/tools/mcp/") || m.includes(SDK)),
      [],
      entry,
    );
  }
});
