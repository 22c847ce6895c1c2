// deno-lint-ignore-file no-console
/**
 * Custom tools: declared once (description, a zod input schema, an execute
 * function), put in a registry of their own, and called by the model in a
 * persisted turn. `readOnly: true` lets `word_count` run in every mode.
 * `save_note` is not read-only, so it is governed like a command: a
 * session opened with no turn policy and no mode is `ask` with nobody to
 * ask, and refuses it (`no_approval_hook`). This script opts in to
 * unattended use explicitly with `settings: { mode: "auto" }`.
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

const notes: string[] = [];
const saveNote = tool({
  name: "save_note",
  description: "Save a short note",
  inputSchema: z.strictObject({ text: z.string().describe("The note") }),
  execute: ({ text }) => {
    notes.push(text);
    return "saved";
  },
  // No `readOnly`: it changes something, so it needs an approval or a mode.
});

const cassette = Deno.args[0] ? await loadCassette(Deno.args[0]) : undefined;
const runtime = denoRuntime({ env: Deno.env, cassette });
const tools = createToolRegistry({
  tools: [wordCount, saveNote],
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
    system_prompt: "Use word_count to count words; save the answer as a note.",
    tools: ["word_count", "save_note"],
  },
  // The explicit opt-in: without it `save_note` would be refused.
  settings: { mode: "auto" },
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
console.log(`notes: ${JSON.stringify(notes)}`);
live.close();
await reader;
store.close();
