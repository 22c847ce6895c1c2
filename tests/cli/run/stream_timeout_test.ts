/**
 * The stream bounds through the CLI: `[chat] first_byte_timeout_ms` (and a
 * `[[providers]]` entry's own) end an `agent run` against a loopback
 * server that never answers (the turn ends, the provider unavailable after
 * its retries); bad values are refused
 * naming the file and the field.
 */
import assert from "node:assert/strict";
import { tempDir } from "../_helpers.ts";
import { agentRunOnFakeAnthropic } from "../_fake_providers.ts";
import { silentServer } from "../../llm/adapters/_server.ts";

async function run(home: string | undefined, entry: Record<string, number>) {
  await using dir = await tempDir();
  const server = silentServer();
  try {
    return await agentRunOnFakeAnthropic(dir.path, server.url, {
      stdin: "hello\n",
      ...(home === undefined ? {} : { home }),
      ...(Object.keys(entry).length === 0 ? {} : { extra: entry }),
    });
  } finally {
    server.close();
  }
}

Deno.test("[chat] first_byte_timeout_ms ends an agent run against a server that never answers", async () => {
  const r = await run("[chat]\nfirst_byte_timeout_ms = 150\n", {});
  assert.notEqual(r.code, 0);
  assert.match(r.stdout, /"stopReason":"error"/);
  // Each attempt timed out (three, then no fallback): the turn ends as an
  // unavailable provider instead of waiting forever.
  assert.match(r.stdout, /"code":"provider_unavailable"/);
});

Deno.test("a [[providers]] entry's own first_byte_timeout_ms ends the run too", async () => {
  const r = await run(undefined, { first_byte_timeout_ms: 150 });
  assert.notEqual(r.code, 0);
  assert.match(r.stdout, /"stopReason":"error"/);
});

Deno.test("bad stream bounds are refused naming the file and the field", async () => {
  const a = await run("[chat]\nidle_timeout_ms = 0\n", {});
  assert.equal(a.code, 2);
  assert.match(
    a.stdout + a.stderr,
    /config\.toml:2: chat\.idle_timeout_ms: must be a positive integer/,
  );
  const b = await run(undefined, { max_response_bytes: -5 });
  assert.equal(b.code, 2);
  assert.match(
    b.stdout + b.stderr,
    /project\.toml:\d+: providers\[0\]\.max_response_bytes: must be a positive integer/,
  );
});
