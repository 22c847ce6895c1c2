// deno-lint-ignore-file no-console
/**
 * Quick start: stream one turn, persisted to a SQLite file.
 *
 * deno run -A examples/quick_start.ts                                     # OpenAI; OPENAI_API_KEY
 * deno run -A examples/quick_start.ts examples/quick_start.cassette.json  # offline replay
 *
 * @module
 */
import {
  denoRuntime,
  loadCassette,
  openSession,
  openSqliteStore,
} from "@relavium/session";

const cassette = Deno.args[0] ? await loadCassette(Deno.args[0]) : undefined;
using live = openSession({
  store: openSqliteStore(`${Deno.makeTempDirSync()}/history.db`),
  runtime: denoRuntime({ env: Deno.env, cassette }),
  agent: {
    id: "guide",
    model: "gpt-5.4-mini",
    provider: "openai",
    system_prompt: "Answer in one sentence.",
  },
});
const turn = live.session.sendMessage("What does a session store keep?");
for await (const event of live.events) {
  if (event.type === "agent:token") {
    await Deno.stdout.write(new TextEncoder().encode(event.token));
  }
  if (event.type === "session:turn_completed") break;
}
const result = await turn;
console.log(
  `\n[${result.kind}: ${result.usage.input} in, ${result.usage.output} out, ${result.costMicrocents} µ¢]`,
);
