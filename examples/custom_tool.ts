// deno-lint-ignore-file no-console
/**
 * A custom tool: declared once (description, a zod input schema, an execute
 * function), put in a registry of its own, and called by the model in a
 * persisted turn. `readOnly: true` lets it run without asking; without it
 * the tool is governed and waits for approval like a command.
 *
 * deno run -A examples/custom_tool.ts                                     # OpenAI; OPENAI_API_KEY
 * deno run -A examples/custom_tool.ts examples/custom_tool.cassette.json  # offline replay
 *
 * @module
 */
import { z } from "zod";
import {
  createDenoPermissionQuery,
  createDenoToolEffects,
  createToolRegistry,
  denoRuntime,
  loadCassette,
  openSession,
  openSqliteStore,
} from "@relavium/session";
import { tool } from "@relavium/session/tools";

const wordCount = tool({
  name: "word_count",
  description: "Count the words of a text",
  inputSchema: z.strictObject({ text: z.string().describe("The text") }),
  execute: ({ text }) => ({ words: text.split(/\s+/).filter(Boolean).length }),
  readOnly: true,
});

const cassette = Deno.args[0] ? await loadCassette(Deno.args[0]) : undefined;
const runtime = denoRuntime({ env: Deno.env, cassette });
const tools = createToolRegistry({
  tools: [wordCount],
  host: createDenoToolEffects(),
  context: { workingDir: runtime.workingDir, fsScopeTier: "sandboxed" },
  permissions: createDenoPermissionQuery(),
});
const store = openSqliteStore(`${await Deno.makeTempDir()}/history.db`);
using live = openSession({
  store,
  runtime,
  tools,
  agent: {
    id: "counter",
    model: "gpt-5.4-mini",
    provider: "openai",
    system_prompt: "Use word_count to count words.",
    tools: ["word_count"],
  },
});

const reader = (async () => {
  for await (const event of live.events) {
    if (event.type === "agent:tool_call") {
      console.log(`call ${event.toolId} ${JSON.stringify(event.toolInput)}`);
    } else if (event.type === "agent:tool_result") {
      console.log(`result ${event.toolId}: ${event.outputSummary}`);
    }
  }
})();
const result = await live.session.sendMessage(
  "How many words are in 'the quick brown fox'?",
);
console.log(`${result.kind}: ${result.text}`);
live.close();
await reader;
store.close();
