/**
 * Usage coverage across a crash: a real `chat` process is SIGKILLed while
 * its provider call is open (a loopback provider that never finishes the
 * stream). The call was journaled before it left, so `chat-show`,
 * `chat-list --json` and a resumed `/cost` say the spend is "at least"
 * the total and name the unaccounted call; a resume takes over the dead
 * process's lease at once.
 */
import assert from "node:assert/strict";
import { declareProviders } from "../_fake_providers.ts";
import { spawnCli } from "../_child.ts";
import {
  runCli,
  tempDir,
  textCassette,
  trustProjectFiles,
  write,
} from "../_helpers.ts";

/** An OpenAI-compatible server whose stream sends one delta and never ends. */
function hangingProvider(): {
  url: string;
  arrived: Promise<void>;
  requests: () => number;
  [Symbol.asyncDispose](): Promise<void>;
} {
  let requests = 0;
  let arrive = (): void => {};
  const arrived = new Promise<void>((resolve) => arrive = resolve);
  const open = new Set<ReadableStreamDefaultController<Uint8Array>>();
  const chunk = new TextEncoder().encode(
    `data: ${
      JSON.stringify({
        id: "c1",
        object: "chat.completion.chunk",
        choices: [{ index: 0, delta: { content: "Thinking" } }],
      })
    }\n\n`,
  );
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => {
      requests++;
      arrive();
      let held: ReadableStreamDefaultController<Uint8Array> | undefined;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          held = controller;
          open.add(controller);
          controller.enqueue(chunk);
        },
        cancel() {
          if (held !== undefined) open.delete(held);
        },
      });
      return new Response(body, {
        headers: { "content-type": "text/event-stream" },
      });
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    arrived,
    requests: () => requests,
    async [Symbol.asyncDispose]() {
      for (const c of open) {
        try {
          c.close();
        } catch {
          // Already cancelled by the client's disconnect.
        }
      }
      await server.shutdown();
    },
  };
}

Deno.test('chat SIGKILLed mid-call: chat-show says "at least" and names the unaccounted call', async () => {
  await using dir = await tempDir();
  await using provider = hangingProvider();
  await declareProviders(dir.path, [{
    id: "fake-openai",
    kind: "openai-compatible",
    baseUrl: `${provider.url}/v1/`,
    allowLocal: true,
  }]);
  const env = { RELAVIUM_HOME: `${dir.path}/home`, NO_COLOR: "1" };
  await trustProjectFiles(dir.path, env);
  await using child = spawnCli(
    ["chat", "--model", "qwen2.5:7b", "--provider", "fake-openai", "--json"],
    { cwd: dir.path, env },
  );
  const started = await child.readUntil((l) =>
    l.startsWith('{"type":"session:started"')
  );
  if (started === undefined) assert.fail((await child.finished()).stderr);
  const sessionId = String(JSON.parse(started).sessionId);
  await child.send("Think about it");
  const exited = child.exited.then(() => "exited" as const);
  assert.equal(
    await Promise.race([
      provider.arrived.then(() => "called" as const),
      exited,
    ]),
    "called",
    "the provider call is open",
  );
  child.kill();
  const end = await child.finished();
  assert.equal(end.signal, "SIGKILL", end.stderr);
  assert.equal(provider.requests(), 1);

  const shown = await runCli(["chat-show", sessionId], { env, cwd: dir.path });
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /^Totals: 0 turns, .*, at least \$/m);
  assert.match(
    shown.stdout,
    /^Turns used: 1\b/m,
    "the killed turn engaged the provider: it counts toward the cap",
  );
  assert.match(
    shown.stdout,
    /^1 call unaccounted \(the process ended while it was open; its usage is unknown\):\n {2}turn call to fake-openai\/qwen2\.5:7b, sent 20\d\d-/m,
  );
  const json = await runCli(["chat-show", sessionId, "--json"], {
    env,
    cwd: dir.path,
  });
  const record = JSON.parse(json.stdout);
  assert.equal(record.unaccountedCalls, 1);
  assert.equal(record.turnsUsed, 1);
  assert.deepEqual(
    record.unaccounted.map((
      c: { purpose: string; provider: string; model: string },
    ) => [c.purpose, c.provider, c.model]),
    [["turn", "fake-openai", "qwen2.5:7b"]],
  );
  const listed = await runCli(["chat-list", "--json"], { env, cwd: dir.path });
  assert.equal(JSON.parse(listed.stdout).unaccountedCalls, 1);

  // The killed process's lease is taken over at once (its pid is gone),
  // and the resumed chat's /cost says the same.
  await write(`${dir.path}/c.json`, textCassette("fake-openai", ["Done."]));
  await using resumed = spawnCli(
    ["chat-resume", sessionId, "--fixture", "c.json"],
    { cwd: dir.path, env },
  );
  await resumed.send("/cost");
  await resumed.send("Again");
  await resumed.send("/cost");
  const after = await resumed.finished();
  assert.equal(after.code, 0, after.stderr);
  const reports = after.stderr.split("\n").filter((l) =>
    l.startsWith("Cost: ")
  );
  assert.equal(reports.length, 2, after.stderr);
  assert.match(reports[0] ?? "", /^Cost: at least \$0\.0000 /);
  assert.match(reports[1] ?? "", /^Cost: price unknown /, "an unpriced model");
  assert.equal(after.stderr.match(/^1 call unaccounted \(/gm)?.length, 2);
  assert.match(resumed.lines.join("\n"), /Done\./);
});
