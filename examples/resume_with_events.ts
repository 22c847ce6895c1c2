// deno-lint-ignore-file no-console
/**
 * Resume with events: a session is written to SQLite, the process "ends",
 * and a new store handle resumes it, here on another model, while a reader
 * prints every event of the resumed turn.
 *
 * deno run -A examples/resume_with_events.ts                                            # OpenAI; OPENAI_API_KEY
 * deno run -A examples/resume_with_events.ts examples/resume_with_events.cassette.json  # offline replay
 *
 * @module
 */
import {
  denoRuntime,
  loadCassette,
  openSession,
  openSqliteStore,
  resumeSession,
} from "@relavium/session";

const cassette = Deno.args[0] ? await loadCassette(Deno.args[0]) : undefined;
const runtime = denoRuntime({ env: Deno.env, cassette });
const path = `${await Deno.makeTempDir()}/history.db`;

// First run: one turn, then the store is closed.
const first = openSqliteStore(path);
const opened = openSession({
  store: first,
  runtime,
  agent: {
    id: "greeter",
    model: "gpt-5.4-mini",
    provider: "openai",
    system_prompt: "Be brief.",
  },
});
const hello = await opened.session.sendMessage("Hi, I am Ada.");
console.log(`turn 1 (${hello.model}): ${hello.text}`);
opened.close();
first.close();

// Second run: a fresh handle on the same file, the same session id, and
// the conversation continued on another model.
const store = openSqliteStore(path);
const resumed = resumeSession({
  store,
  runtime,
  sessionId: opened.sessionId,
  reseat: { model: "gpt-5.4" },
});
if (!resumed.ok) throw new Error(`cannot resume: ${resumed.error.kind}`);
using live = resumed.value;
console.log(
  `resumed ${live.sessionId} after ${live.session.turnCount} turn(s)`,
);

const reader = (async () => {
  for await (const event of live.events) {
    const detail = event.type === "agent:token"
      ? JSON.stringify(event.token)
      : event.type === "cost:updated"
      ? `${event.costMicrocents} µ¢ (${event.model})`
      : "";
    console.log(`  #${event.sequenceNumber} ${event.type} ${detail}`);
  }
})();
const again = await live.session.sendMessage("What is my name?");
live.close();
await reader;
console.log(`turn 2 (${again.model}): ${again.text}`);
console.log(`stored messages: ${store.load(live.sessionId)?.messages.length}`);
store.close();
