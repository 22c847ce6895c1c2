/**
 * The stream bounds through the CLI: `[chat] first_byte_timeout_ms` (and a
 * `[[providers]]` entry's own) end an `agent run` against a loopback
 * server that never answers (the turn ends, the provider unavailable after
 * its retries); bad values are refused
 * naming the file and the field.
 */
import assert from "node:assert/strict";
import { runCli, tempDir, write } from "./_helpers.ts";
import {
  agentYaml,
  declareProviders,
  loopbackFetch,
  PLANTED,
} from "./_fake_providers.ts";

/** A raw TCP server that accepts and reads, and never writes a byte. */
function silentServer(): { url: string; close(): void } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns: Deno.Conn[] = [];
  (async () => {
    for await (const conn of listener) {
      conns.push(conn);
      (async () => {
        const buf = new Uint8Array(4096);
        try {
          while ((await conn.read(buf)) !== null) { /* drain */ }
        } catch { /* reset */ }
      })();
    }
  })().catch(() => {});
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    close() {
      listener.close();
      for (const c of conns) {
        try {
          c.close();
        } catch { /* gone */ }
      }
    },
  };
}

async function run(home: string | undefined, entry: Record<string, number>) {
  await using dir = await tempDir();
  const server = silentServer();
  try {
    await declareProviders(dir.path, [{
      id: "fake-anthropic",
      kind: "anthropic",
      baseUrl: server.url,
      allowLocal: true,
    }]);
    if (Object.keys(entry).length > 0) {
      const toml = await Deno.readTextFile(
        `${dir.path}/.relavium/project.toml`,
      );
      await write(
        `${dir.path}/.relavium/project.toml`,
        toml +
          Object.entries(entry).map(([k, v]) => `${k} = ${v}\n`).join(""),
      );
    }
    if (home !== undefined) await write(`${dir.path}/home/config.toml`, home);
    await write(
      `${dir.path}/a.agent.yaml`,
      agentYaml({ provider: "fake-anthropic", model: "claude-sonnet-4-6" }),
    );
    return await runCli(["agent", "run", "a.agent.yaml", "--json"], {
      env: {
        RELAVIUM_HOME: `${dir.path}/home`,
        RELAVIUM_FAKE_ANTHROPIC_API_KEY: PLANTED.anthropic,
      },
      cwd: dir.path,
      stdin: "hello\n",
      fetch: loopbackFetch().fetch,
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
