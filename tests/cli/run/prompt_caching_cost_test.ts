/**
 * Prompt caching end to end through `main(argv, io)`: a two-turn chat
 * with a tool round against a loopback Anthropic server (a `[[providers]]`
 * entry with its own prices) sends cache breakpoints in every request
 * (one-hour ones under `[chat].prompt_caching = "1h"`); the cache reads and
 * writes the server reports show, priced, in `/cost` and `chat-show`.
 */
import assert from "node:assert/strict";
import { runCli, tempDir, write } from "../_helpers.ts";
import {
  anthropicReadNotes,
  fixture,
  loopbackFetch,
  PLANTED,
  serve,
  sse,
  type TestServer,
} from "../_fake_providers.ts";

const MODEL = "claude-cache-test";
const EPHEMERAL = { type: "ephemeral" };
type Json = Record<string, unknown>;

/** The tool round's reply, writing 2000 tokens to the cache. */
function toolRoundWritingCache(): Uint8Array {
  const text = new TextDecoder().decode(anthropicReadNotes());
  const from =
    '"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"cache_creation":{"ephemeral_5m_input_tokens":0';
  assert.ok(text.includes(from));
  return new TextEncoder().encode(text.replace(
    from,
    '"cache_creation_input_tokens":2000,"cache_read_input_tokens":0,"cache_creation":{"ephemeral_5m_input_tokens":2000',
  ));
}

/** Serves the tool round, its answer, then the second turn's answer. */
function cachingServer(): TestServer {
  // cache_usage.sse: 12000 tokens read from the cache, 1800 written.
  return serve([
    sse(toolRoundWritingCache()),
    sse(fixture("anthropic", "cache_usage.sse")),
    sse(fixture("anthropic", "cache_usage.sse")),
  ]);
}

async function setUp(dir: string, url: string, chat: string): Promise<void> {
  await write(
    `${dir}/.relavium/project.toml`,
    `${chat}[[providers]]
id = "fake-anthropic"
kind = "anthropic"
base_url = "${url}"
allow_local = true

[providers.prices.${MODEL}]
input = 300000000
output = 1500000000
cache_read = 30000000
cache_write = 375000000
`,
  );
  await write(`${dir}/notes.txt`, "The secret word is kumquat.\n");
  await write(
    `${dir}/a.agent.yaml`,
    [
      "id: fake",
      "name: Fake",
      `model: ${MODEL}`,
      "provider: fake-anthropic",
      "system_prompt: Be terse.",
      "tools:",
      "  - read_file",
      "",
    ].join("\n"),
  );
}

async function twoTurnChat(dir: string) {
  const env = {
    RELAVIUM_HOME: `${dir}/home`,
    RELAVIUM_FAKE_ANTHROPIC_API_KEY: PLANTED.anthropic,
  };
  const chat = await runCli(["chat", "--agent", "a.agent.yaml"], {
    env,
    cwd: dir,
    stdin: "What is the secret word in notes.txt?\nAnd again?\n/cost\n",
    fetch: loopbackFetch().fetch,
  });
  return { env, chat };
}

/** Where each `cache_control` of a request body sits. */
function breakpoints(body: Json): string[] {
  const at: string[] = [];
  const tools = (body["tools"] ?? []) as Json[];
  tools.forEach((t, i) => {
    if (t["cache_control"] !== undefined) at.push(`tools[${i}]`);
  });
  const system = body["system"];
  if (Array.isArray(system)) {
    system.forEach((b: Json, i) => {
      if (b["cache_control"] !== undefined) at.push(`system[${i}]`);
    });
  }
  const messages = body["messages"] as Json[];
  messages.forEach((m, i) => {
    (m["content"] as Json[]).forEach((b, j) => {
      if (b["cache_control"] !== undefined) {
        at.push(`messages[${i}].${String(b["type"])}[${j}]`);
      }
    });
  });
  return at;
}

Deno.test("chat: every request of a two-turn chat with a tool round carries cache breakpoints; /cost and chat-show price the cache", async () => {
  await using dir = await tempDir();
  const server = cachingServer();
  try {
    await setUp(dir.path, server.url, "");
    const { env, chat } = await twoTurnChat(dir.path);
    assert.equal(chat.code, 0, chat.stderr);
    assert.equal(server.requests.length, 3);
    const bodies = server.requests.map((r) => JSON.parse(r.body) as Json);
    for (const body of bodies) {
      assert.ok(JSON.stringify(body).split('"cache_control"').length - 1 <= 4);
      const system = body["system"] as Json[];
      assert.deepEqual(system.at(-1)?.["cache_control"], EPHEMERAL);
      const tools = body["tools"] as Json[];
      assert.deepEqual(tools.at(-1)?.["cache_control"], EPHEMERAL);
    }
    const lastTool = `tools[${(bodies[0]?.["tools"] as Json[]).length - 1}]`;
    assert.deepEqual(bodies.map(breakpoints), [
      // The first call: one user message.
      [lastTool, "system[0]", "messages[0].text[0]"],
      // The tool round: the call and its result.
      [
        lastTool,
        "system[0]",
        "messages[1].tool_use[1]",
        "messages[2].tool_result[0]",
      ],
      // The second turn (a finished turn's tool round is not replayed):
      // the first turn's answer and the new question.
      [lastTool, "system[0]", "messages[1].text[0]", "messages[2].text[0]"],
    ]);

    // 24000 read at $0.30/Mtok; 2000 + 2·1800 written at $3.75/Mtok.
    const cacheLine = "cache: 24000 read ($0.0072), 5600 written ($0.0210)";
    assert.match(
      chat.stdout + chat.stderr,
      new RegExp(`\\n\\s+${escape(cacheLine)}\\n`),
      chat.stderr,
    );

    const list = await runCli(["chat-list", "--json"], { env, cwd: dir.path });
    assert.equal(list.code, 0, list.stderr);
    const id = String(
      JSON.parse(list.stdout.trim().split("\n")[0] ?? "{}").sessionId,
    );
    const shown = await runCli(["chat-show", id], { env, cwd: dir.path });
    assert.equal(shown.code, 0, shown.stderr);
    assert.ok(shown.stdout.includes(cacheLine), shown.stdout);
    const json = await runCli(["chat-show", id, "--json"], {
      env,
      cwd: dir.path,
    });
    const record = JSON.parse(json.stdout);
    assert.deepEqual(
      record.costs.map((c: Json) => [
        c["model"],
        c["cacheReadTokens"],
        c["cacheReadMicrocents"],
        c["cacheWriteTokens"],
        c["cacheWriteMicrocents"],
      ]),
      [[MODEL, 24000, 720_000, 5600, 2_100_000]],
    );
  } finally {
    await server.close();
  }
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

Deno.test('chat: [chat].prompt_caching = "1h" sends one-hour breakpoints', async () => {
  await using dir = await tempDir();
  const server = cachingServer();
  try {
    await setUp(dir.path, server.url, '[chat]\nprompt_caching = "1h"\n\n');
    const { chat } = await twoTurnChat(dir.path);
    assert.equal(chat.code, 0, chat.stderr);
    for (const r of server.requests) {
      const body = JSON.parse(r.body) as Json;
      assert.deepEqual((body["system"] as Json[])[0]?.["cache_control"], {
        type: "ephemeral",
        ttl: "1h",
      });
      assert.ok(!r.body.includes('"cache_control":{"type":"ephemeral"}'));
    }
  } finally {
    await server.close();
  }
});
