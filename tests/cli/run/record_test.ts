/**
 * `--record <cassette>`: record a session against
 * loopback fake providers, replay the cassette with `--fixture` offline,
 * and get the same event signature; the cassette holds no key.
 */
import assert from "node:assert/strict";
import { openRecorder } from "../../../cli/run/record.ts";
import { createScriptedProvider } from "../../../llm/scripted_provider.ts";
import { parseEvents, runCli, signature, tempDir, write } from "../_helpers.ts";
import {
  agentYaml,
  anthropicReadNotes,
  declareProviders,
  fixture,
  http,
  loopbackFetch,
  openaiReadNotes,
  PLANTED,
  serve,
  sse,
  type TestServer,
} from "../_fake_providers.ts";

const PROMPT = "What is the secret word in notes.txt?";

interface Call {
  chunks: Array<{ type: string }>;
  expect: { model: string; lastUserIncludes?: string };
}

async function readCassette(path: string): Promise<{
  text: string;
  json: {
    schema_version: string;
    strict: boolean;
    model: string;
    providers: Record<string, { calls: Call[] }>;
  };
}> {
  const text = await Deno.readTextFile(path);
  return { text, json: JSON.parse(text) };
}

function assertNoKey(text: string, where: string): void {
  for (const key of Object.values(PLANTED)) {
    assert.ok(!text.includes(key), `a planted key leaked into ${where}`);
  }
}

async function withServers(
  servers: TestServer[],
  body: () => Promise<void>,
): Promise<void> {
  try {
    await body();
  } finally {
    await Promise.all(servers.map((s) => s.close()));
  }
}

function keyEnv(dir: string): Record<string, string> {
  return {
    RELAVIUM_HOME: `${dir}/home`,
    RELAVIUM_FAKE_ANTHROPIC_API_KEY: PLANTED.anthropic,
    RELAVIUM_FAKE_OPENAI_API_KEY: PLANTED.openai,
  };
}

Deno.test("agent run --record, then --fixture: a rate-limited primary, the fallback's tool round, the same signature", async () => {
  await using dir = await tempDir();
  // A rate limit with `retry-after: 0`: no backoff wait, and the parked
  // primary is skipped by the tool round's second call.
  const limited = http(fixture("anthropic", "error_429.http"), {
    "retry-after": "0",
  });
  const primary = serve([limited, limited, limited]);
  const fallback = serve([
    sse(openaiReadNotes()),
    sse(fixture("openai", "text.sse")),
  ]);
  let recorded: string[] = [];
  await withServers([primary, fallback], async () => {
    await declareProviders(dir.path, [
      {
        id: "fake-anthropic",
        kind: "anthropic",
        baseUrl: primary.url,
        allowLocal: true,
      },
      {
        id: "fake-openai",
        kind: "openai-compatible",
        baseUrl: `${fallback.url}/v1`,
        allowLocal: true,
      },
    ]);
    await write(`${dir.path}/notes.txt`, "The secret word is kumquat.\n");
    await write(
      `${dir.path}/a.agent.yaml`,
      agentYaml({
        provider: "fake-anthropic",
        model: "claude-sonnet-4-6",
        tools: ["read_file"],
        fallback: [{ provider: "fake-openai", model: "gpt-5.4-mini" }],
      }),
    );
    const r = await runCli(
      ["agent", "run", "a.agent.yaml", "--record", "c.json", "--json"],
      {
        env: keyEnv(dir.path),
        cwd: dir.path,
        stdin: `${PROMPT}\n`,
        fetch: loopbackFetch().fetch,
      },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, "", "a clean --json run, recording or not");
    recorded = signature(parseEvents(r.stdout));
    assert.ok(recorded.includes("agent:tool_result:read_file"));
    assert.equal(primary.requests.length, 3);
    assert.equal(fallback.requests.length, 2);
  });
  const { text, json } = await readCassette(`${dir.path}/c.json`);
  assertNoKey(text, "the cassette");
  assert.equal(json.schema_version, "1.1");
  assert.equal(json.strict, true);
  assert.equal(json.model, "claude-sonnet-4-6");
  assert.deepEqual(Object.keys(json.providers), [
    "fake-anthropic",
    "fake-openai",
  ]);
  const first = json.providers["fake-anthropic"]?.calls ?? [];
  assert.deepEqual(
    first.map((c) => c.chunks.map((k) => k.type)),
    [["error"], ["error"], ["error"]],
  );
  const second = json.providers["fake-openai"]?.calls ?? [];
  assert.deepEqual(second.map((c) => c.expect), [
    { model: "gpt-5.4-mini", lastUserIncludes: PROMPT },
    { model: "gpt-5.4-mini", lastUserIncludes: PROMPT },
  ]);
  // Offline: no key, and the buffered io's transport refuses the network.
  const replay = await runCli(
    ["agent", "run", "a.agent.yaml", "--fixture", "c.json", "--json"],
    {
      env: { RELAVIUM_HOME: `${dir.path}/home` },
      cwd: dir.path,
      stdin: `${PROMPT}\n`,
    },
  );
  assert.equal(replay.code, 0, replay.stderr);
  assert.equal(replay.stderr, "");
  assert.deepEqual(signature(parseEvents(replay.stdout)), recorded);
});

Deno.test("chat and chat-resume --record, then --fixture: same signatures, exit 0", async () => {
  await using dir = await tempDir();
  const server = serve([
    sse(fixture("anthropic", "text.sse")),
    sse(anthropicReadNotes()),
    sse(fixture("anthropic", "text.sse")),
    sse(fixture("anthropic", "text.sse")),
  ]);
  const lines = "Hello\nNow read notes.txt, please.\n";
  await withServers([server], async () => {
    await declareProviders(dir.path, [{
      id: "fake-anthropic",
      kind: "anthropic",
      baseUrl: server.url,
      allowLocal: true,
    }]);
    await write(`${dir.path}/notes.txt`, "The secret word is kumquat.\n");
    const chatArgs = [
      "chat",
      "--model",
      "claude-sonnet-4-6",
      "--provider",
      "fake-anthropic",
      "--json",
    ];
    const env = keyEnv(dir.path);
    const live = await runCli([...chatArgs, "--record", "chat.json"], {
      env,
      cwd: dir.path,
      stdin: lines,
      fetch: loopbackFetch().fetch,
    });
    assert.equal(live.code, 0, live.stderr);
    assert.equal(live.stderr, "");
    const replay = await runCli([...chatArgs, "--fixture", "chat.json"], {
      env: { RELAVIUM_HOME: env.RELAVIUM_HOME ?? "" },
      cwd: dir.path,
      stdin: lines,
    });
    assert.equal(replay.code, 0, replay.stderr);
    assert.equal(replay.stderr, "");
    assert.deepEqual(
      signature(parseEvents(replay.stdout)),
      signature(parseEvents(live.stdout)),
    );
    const chat = await readCassette(`${dir.path}/chat.json`);
    assertNoKey(chat.text, "the chat cassette");
    assert.deepEqual(
      chat.json.providers["fake-anthropic"]?.calls.map((c) =>
        c.expect.lastUserIncludes
      ),
      ["Hello", "Now read notes.txt, please.", "Now read notes.txt, please."],
    );

    const resumeLive = await runCli(
      ["chat-resume", "--last", "--record", "resume.json", "--json"],
      {
        env,
        cwd: dir.path,
        stdin: "And again?\n",
        fetch: loopbackFetch().fetch,
      },
    );
    assert.equal(resumeLive.code, 0, resumeLive.stderr);
    assert.equal(resumeLive.stderr, "");
    const resumeReplay = await runCli(
      ["chat-resume", "--last", "--fixture", "resume.json", "--json"],
      {
        env: { RELAVIUM_HOME: env.RELAVIUM_HOME ?? "" },
        cwd: dir.path,
        stdin: "And again?\n",
      },
    );
    assert.equal(resumeReplay.code, 0, resumeReplay.stderr);
    assert.deepEqual(
      signature(parseEvents(resumeReplay.stdout)),
      signature(parseEvents(resumeLive.stdout)),
    );
    assert.equal(server.requests.length, 4);
  });
});

Deno.test("a failed turn is recorded too: exit 1 live and on replay", async () => {
  await using dir = await tempDir();
  const server = serve([http(fixture("anthropic", "error_401.http"))]);
  await withServers([server], async () => {
    await declareProviders(dir.path, [{
      id: "fake-anthropic",
      kind: "anthropic",
      baseUrl: server.url,
      allowLocal: true,
    }]);
    await write(
      `${dir.path}/a.agent.yaml`,
      agentYaml({ provider: "fake-anthropic", model: "claude-sonnet-4-6" }),
    );
    const live = await runCli(
      ["agent", "run", "a.agent.yaml", "--record", "c.json"],
      {
        env: { ...keyEnv(dir.path), NO_COLOR: "1" },
        cwd: dir.path,
        stdin: "Hello",
        fetch: loopbackFetch().fetch,
      },
    );
    assert.equal(live.code, 1);
    assert.match(
      live.stderr,
      /notice: Recorded 1 provider call to .*c\.json \(it holds the conversation's text/,
    );
    const replay = await runCli(
      ["agent", "run", "a.agent.yaml", "--fixture", "c.json", "--json"],
      {
        env: { RELAVIUM_HOME: `${dir.path}/home` },
        cwd: dir.path,
        stdin: "Hello",
      },
    );
    assert.equal(replay.code, 1);
    const done = parseEvents(replay.stdout).find((e) =>
      e.type === "session:turn_completed"
    );
    assert.equal(
      done?.type === "session:turn_completed" ? done.error?.code : "",
      "provider_auth",
    );
    assertNoKey(await Deno.readTextFile(`${dir.path}/c.json`), "the cassette");
  });
});

/** A recorder of `c.json` in `dir` for the `openai` primary. */
function recorderIn(dir: string): ReturnType<typeof openRecorder> {
  return openRecorder("c.json", {
    cwd: dir,
    primaryProvider: "openai",
    model: "gpt-5.4-mini",
  });
}

Deno.test("openRecorder() scrubs a key that reaches a chunk and cuts the expected text to 200 units", async () => {
  await using dir = await tempDir();
  const r = await recorderIn(dir.path);
  assert.ok(r.ok);
  if (!r.ok) return;
  const provider = r.value.wrap(
    "openai",
    createScriptedProvider({
      id: "openai",
      script: [[
        { type: "text_delta", text: `you said ${PLANTED.openai}` },
        {
          type: "stop",
          stopReason: "stop",
          usage: { inputTokens: 1, outputTokens: 1 },
        },
      ]],
    }),
  );
  const long = `${"a".repeat(199)}😊 and more`;
  for await (
    const _ of provider.stream({
      model: "gpt-5.4-mini",
      messages: [{ role: "user", content: [{ type: "text", text: long }] }],
    }, PLANTED.openai)
  ) {
    // consume
  }
  const written = await r.value.write();
  assert.ok(written.ok);
  const { text, json } = await readCassette(`${dir.path}/c.json`);
  assertNoKey(text, "the cassette");
  const call = json.providers.openai?.calls[0];
  assert.deepEqual(call?.chunks[0], {
    type: "text_delta",
    text: "you said [redacted]",
  });
  // 199 units: the emoji's high surrogate would have been the 200th.
  assert.equal(call?.expect.lastUserIncludes, "a".repeat(199));
});

Deno.test("openRecorder() writes a stream cut before its terminal with a terminal error chunk, so the cassette loads", async () => {
  await using dir = await tempDir();
  const r = await recorderIn(dir.path);
  if (!r.ok) throw new Error("recorder not opened");
  const cut = createScriptedProvider({
    id: "openai",
    script: [[{ type: "text_delta", text: "cut" }]],
  });
  const request = { model: "gpt-5.4-mini", messages: [] };
  for await (const _ of r.value.wrap("openai", cut).stream(request, "")) {
    // consume
  }
  const chunks = JSON.parse(r.value.cassette()).providers["openai"]?.calls[0]
    ?.chunks;
  assert.deepEqual(chunks?.map((c: { type: string }) => c.type), [
    "text_delta",
    "error",
  ]);
  assert.ok((await r.value.write()).ok);
  const { parseCassette } = await import("../../../llm/cassette.ts");
  const text = await Deno.readTextFile(`${dir.path}/c.json`);
  assert.ok(parseCassette(text, "c.json").ok);
});
