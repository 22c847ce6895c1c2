// deno-lint-ignore-file no-console
/**
 * MCP tools in a library session: a registry joins an MCP server (here
 * `examples/mcp/calc_server.ts`, started over stdio), and the model calls
 * its `add` tool as `mcp_calc_add`. Every MCP call is governed egress: a
 * session with no policy and no mode refuses it (`no_approval_hook`), so
 * this script opts in with `settings: { mode: "auto" }`. The server runs
 * with an environment built from scratch, in its own process group, and
 * is stopped by `tools.close()`.
 *
 * deno run -A examples/mcp_tools.ts                                   # OpenAI; OPENAI_API_KEY
 * deno run -A examples/mcp_tools.ts examples/mcp_tools.cassette.json  # offline replay
 *
 * @module
 */
import {
  allBuiltinTools,
  createDenoPermissionQuery,
  createDenoToolEffects,
  createMemoryStore,
  createToolRegistry,
  denoRuntime,
  loadCassette,
  openSession,
} from "@relavium/session";

const cassette = Deno.args[0] ? await loadCassette(Deno.args[0]) : undefined;
const runtime = denoRuntime({ env: Deno.env, cassette });
const server = new URL("./mcp/calc_server.ts", import.meta.url).pathname;
const config = new URL("../deno.json", import.meta.url).pathname;
const tools = await createToolRegistry({
  tools: allBuiltinTools(),
  host: createDenoToolEffects(),
  context: { workingDir: runtime.workingDir, fsScopeTier: "sandboxed" },
  permissions: createDenoPermissionQuery(),
}).withMcpServers([{
  id: "calc",
  transport: "stdio",
  command: Deno.execPath(),
  args: ["run", "--no-prompt", `--config=${config}`, server],
}], {
  env: Deno.env,
  onEvent: (e) => console.log(`mcp ${e.server}: ${e.state}`),
});
using live = openSession({
  store: createMemoryStore(),
  runtime,
  tools,
  agent: {
    id: "adder",
    model: "gpt-5.4-mini",
    provider: "openai",
    system_prompt: "Add numbers with the calc tools.",
  },
  // The explicit opt-in: without it the MCP call would be refused.
  settings: { mode: "auto" },
});
const reader = (async () => {
  for await (const event of live.events) {
    if (event.type === "agent:tool_result") {
      console.log(`result ${event.toolId}: ${event.outputSummary}`);
    }
  }
})();
const result = await live.session.sendMessage("What is 2 + 3?");
console.log(`${result.kind}: ${result.text}`);
live.close();
await reader;
await tools.close();
