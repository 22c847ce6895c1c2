/**
 * The floor of a one-turn chat through a loopback provider: open
 * `node:sqlite` on a file, make one streamed request to the provider
 * (`bench/loopback_provider.ts`) and read its body to the end, then commit
 * two rows (the question and the answer) in one transaction. A 1-turn
 * `chat` against the same provider is measured against it (BENCHMARKS.md).
 *
 *   deno run -A bench/floor_turn.ts <base url, e.g. http://127.0.0.1:PORT/v1> <db file>
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";

const [base, file] = Deno.args;
if (base === undefined || file === undefined) {
  throw new Error("usage: floor_turn.ts <base url> <db file>");
}
const db = new DatabaseSync(file);
db.exec(
  "CREATE TABLE IF NOT EXISTS messages (id INTEGER PRIMARY KEY, role TEXT, body TEXT)",
);
const response = await fetch(`${base}/chat/completions`, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({
    model: "gpt-4.1-mini",
    stream: true,
    messages: [{ role: "user", content: "hello" }],
  }),
});
if (response.body === null) throw new Error("no body");
const decoder = new TextDecoder();
let text = "";
for await (const bytes of response.body) {
  text += decoder.decode(bytes, { stream: true });
}
const insert = db.prepare("INSERT INTO messages (role, body) VALUES (?, ?)");
db.exec("BEGIN");
insert.run("user", "hello");
insert.run("assistant", text);
db.exec("COMMIT");
db.close();
Deno.stdout.writeSync(
  new TextEncoder().encode(text.length > 0 ? "ok\n" : "empty\n"),
);
