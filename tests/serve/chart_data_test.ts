/**
 * What the page's chart is drawn from: `GET /v1/sessions/:id` carries the
 * session's per-turn figures (the `chat-show --json` record's
 * `turnUsage`), read from the store, so a restarted server still has every
 * turn and `chat-show --json` says the same.
 */
import assert from "node:assert/strict";
import { cliRunArgs } from "../cli/_child.ts";
import {
  call,
  fakeProvider,
  newSession,
  openSse,
  prepareFolder,
  type ServeChild,
  startServe,
} from "./_kit.ts";

async function turn(
  server: ServeChild,
  sessionId: string,
  text: string,
): Promise<void> {
  const sent = await call(
    server,
    "POST",
    `/v1/sessions/${sessionId}/messages`,
    {
      text,
    },
  );
  assert.equal(sent.status, 202);
  const stream = await openSse(server, sessionId, {
    lastEventId: String(sent.body["after"]),
    query: "?until=idle",
  });
  assert.ok(await stream.until((f) => f.event === "server:idle"));
  await stream.close();
}

Deno.test("GET /v1/sessions/:id has every turn's figures after a restart", async () => {
  await using provider = fakeProvider();
  const dir = await Deno.makeTempDir({ prefix: "serve-chart-" });
  const folder = await prepareFolder(dir, provider.url);
  let sessionId: string;
  let before: unknown;
  {
    await using server = await startServe(folder);
    sessionId = await newSession(server);
    for (const text of ["one", "two", "three"]) {
      provider.push({ tokens: [`answer ${text}`] });
      await turn(server, sessionId, text);
    }
    const shown = await call(server, "GET", `/v1/sessions/${sessionId}`);
    before = (shown.body["session"] as Record<string, unknown>)["turnUsage"];
    assert.equal((await server.stop()).code, 0);
  }
  // Each turn: the loopback provider's usage (11 in, 7 out).
  const usage = before as Array<Record<string, number>>;
  assert.deepEqual(usage.map((u) => u["turnNumber"]), [1, 2, 3]);
  for (const u of usage) {
    assert.equal(u["inputTokens"], 11);
    assert.equal(u["outputTokens"], 7);
    assert.ok(Number.isSafeInteger(u["costMicrocents"]));
  }
  await using again = await startServe(folder);
  const shown = await call(again, "GET", `/v1/sessions/${sessionId}`);
  assert.equal(shown.status, 200);
  const session = shown.body["session"] as Record<string, unknown>;
  assert.deepEqual(session["turnUsage"], before);
  // The CLI's record is the same one.
  const out = await new Deno.Command(Deno.execPath(), {
    args: cliRunArgs(["chat-show", sessionId, "--json"]),
    cwd: `${dir}/proj`,
    clearEnv: true,
    env: folder.env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const cli = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.deepEqual(cli.turnUsage, before);
  await again.stop();
  await Deno.remove(dir, { recursive: true });
});
