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
  anthropicReadNotes,
  assertNoKey,
  fixture,
  http,
  keyEnv,
  link,
  openaiReadNotes,
  PLANTED,
  runChain,
  runLoopback,
  sse,
  withFakeAnthropic,
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

/** `main(argv, io)` in `dir` replaying a cassette: no key, no network. */
function replay(dir: string, argv: string[], stdin: string) {
  return runCli(argv, {
    env: { RELAVIUM_HOME: `${dir}/home` },
    cwd: dir,
    stdin,
  });
}

Deno.test("agent run --record, then --fixture: a rate-limited primary, the fallback's tool round, the same signature", async () => {
  await using dir = await tempDir();
  // A rate limit with `retry-after: 0`: no backoff wait, and the parked
  // primary is skipped by the tool round's second call.
  const limited = http(fixture("anthropic", "error_429.http"), {
    "retry-after": "0",
  });
  await write(`${dir.path}/notes.txt`, "The secret word is kumquat.\n");
  const { r, requests } = await runChain(
    dir.path,
    [
      link("fake-anthropic", "claude-sonnet-4-6", [limited, limited, limited]),
      link("fake-openai", "gpt-5.4-mini", [
        sse(openaiReadNotes()),
        sse(fixture("openai", "text.sse")),
      ]),
    ],
    ["agent", "run", "a.agent.yaml", "--record", "c.json", "--json"],
    {
      env: keyEnv(dir.path),
      stdin: `${PROMPT}\n`,
      tools: ["read_file"],
    },
  );
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, "", "a clean --json run, recording or not");
  const recorded = signature(parseEvents(r.stdout));
  assert.ok(recorded.includes("agent:tool_result:read_file"));
  assert.deepEqual(requests, [3, 2]);
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
  const again = await replay(
    dir.path,
    ["agent", "run", "a.agent.yaml", "--fixture", "c.json", "--json"],
    `${PROMPT}\n`,
  );
  assert.equal(again.code, 0, again.stderr);
  assert.equal(again.stderr, "");
  assert.deepEqual(signature(parseEvents(again.stdout)), recorded);
});

Deno.test("chat and chat-resume --record, then --fixture: same signatures, exit 0", async () => {
  await using dir = await tempDir();
  const replies = [
    sse(fixture("anthropic", "text.sse")),
    sse(anthropicReadNotes()),
    sse(fixture("anthropic", "text.sse")),
    sse(fixture("anthropic", "text.sse")),
  ];
  const lines = "Hello\nNow read notes.txt, please.\n";
  await withFakeAnthropic(dir.path, replies, async (server) => {
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
    const live = await runLoopback(
      dir.path,
      [...chatArgs, "--record", "chat.json"],
      { env, stdin: lines },
    );
    assert.equal(live.code, 0, live.stderr);
    assert.equal(live.stderr, "");
    const again = await replay(
      dir.path,
      [...chatArgs, "--fixture", "chat.json"],
      lines,
    );
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stderr, "");
    assert.deepEqual(
      signature(parseEvents(again.stdout)),
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

    const resumeLive = await runLoopback(
      dir.path,
      ["chat-resume", "--last", "--record", "resume.json", "--json"],
      { env, stdin: "And again?\n" },
    );
    assert.equal(resumeLive.code, 0, resumeLive.stderr);
    assert.equal(resumeLive.stderr, "");
    const resumeReplay = await replay(
      dir.path,
      ["chat-resume", "--last", "--fixture", "resume.json", "--json"],
      "And again?\n",
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
  const replies = [http(fixture("anthropic", "error_401.http"))];
  await withFakeAnthropic(dir.path, replies, async () => {
    const live = await runLoopback(
      dir.path,
      ["agent", "run", "a.agent.yaml", "--record", "c.json"],
      { env: { ...keyEnv(dir.path), NO_COLOR: "1" }, stdin: "Hello" },
    );
    assert.equal(live.code, 1);
    assert.match(
      live.stderr,
      /notice: Recorded 1 provider call to .*c\.json \(it holds the conversation's text/,
    );
    const again = await replay(
      dir.path,
      ["agent", "run", "a.agent.yaml", "--fixture", "c.json", "--json"],
      "Hello",
    );
    assert.equal(again.code, 1);
    const done = parseEvents(again.stdout).find((e) =>
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
