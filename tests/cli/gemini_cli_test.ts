/**
 * Gemini end to end through `main(argv, io)` against a loopback server
 * declared as `[[providers]] kind = "gemini"`: a `read_file` round trip
 * (the server refuses the second request unless the call's thought
 * signature and its result come back), a persisted chat, `--record` and
 * `--fixture`, and the planted key nowhere but the request header.
 */
import assert from "node:assert/strict";
import { parseEvents, runCli, tempDir, write } from "./_helpers.ts";
import {
  agentYaml,
  allFileText,
  declareProviders,
  loopbackFetch,
  serve,
  type TestServer,
} from "./_fake_providers.ts";
import { fixture, sse } from "../llm/adapters/_server.ts";

const KEY = "gemini-planted-credential-7c4e91";
const SIGNATURE = "Q2lRQmp6MXJYN3NpZy1yZWFkLW5vdGVz";
const NOTES = "The secret word is kumquat.\n";

function events(lines: unknown[]): Uint8Array {
  return new TextEncoder().encode(
    lines.map((l) => `data: ${JSON.stringify(l)}\r\n\r\n`).join(""),
  );
}

/** A thought, then a signed `read_file` call. */
const CALL = events([
  {
    candidates: [{
      content: {
        role: "model",
        parts: [{ text: "I should read the notes.", thought: true }],
      },
    }],
  },
  {
    candidates: [{
      content: {
        role: "model",
        parts: [{
          functionCall: { name: "read_file", args: { path: "notes.txt" } },
          thoughtSignature: SIGNATURE,
        }],
      },
      finishReason: "STOP",
    }],
    usageMetadata: {
      promptTokenCount: 50,
      candidatesTokenCount: 10,
      thoughtsTokenCount: 20,
    },
  },
]);

/** Answers only a request that carries the signed call and its result. */
function answer(req: Request, text: string): Response | Promise<Response> {
  const body = JSON.parse(text);
  const parts = (body.contents as Array<{ parts: Record<string, unknown>[] }>)
    .flatMap((c) => c.parts);
  const call = parts.find((p) => p["functionCall"] !== undefined);
  const result = parts.find((p) => p["functionResponse"] !== undefined);
  if (
    call?.["thoughtSignature"] !== SIGNATURE ||
    !JSON.stringify(result ?? {}).includes("kumquat")
  ) {
    return new Response(
      JSON.stringify({
        error: {
          code: 400,
          message: "Function call is missing a thought_signature",
          status: "INVALID_ARGUMENT",
        },
      }),
      { status: 400 },
    );
  }
  return sse(fixture("gemini", "text.sse"))(req, text);
}

async function setUp(dir: string, server: TestServer): Promise<void> {
  await declareProviders(dir, [{
    id: "fake-gemini",
    kind: "gemini",
    baseUrl: `${server.url}/v1beta`,
    allowLocal: true,
  }]);
  await write(`${dir}/notes.txt`, NOTES);
  await write(
    `${dir}/a.agent.yaml`,
    agentYaml({
      provider: "fake-gemini",
      model: "gemini-3-flash-preview",
      tools: ["read_file"],
    }),
  );
}

function env(dir: string): Record<string, string> {
  return {
    RELAVIUM_HOME: `${dir}/home`,
    RELAVIUM_FAKE_GEMINI_API_KEY: KEY,
    NO_COLOR: "1",
  };
}

Deno.test("agent run: a read_file round trip against a loopback Gemini server, recorded and replayed", async () => {
  await using dir = await tempDir();
  const server = serve([sse(CALL), answer]);
  try {
    await setUp(dir.path, server);
    const r = await runCli(
      ["agent", "run", "a.agent.yaml", "--json", "--record", "rec.json"],
      {
        env: env(dir.path),
        cwd: dir.path,
        stdin: "What is the secret word in notes.txt?\n",
        fetch: loopbackFetch().fetch,
      },
    );
    assert.equal(r.code, 0, r.stderr);
    const list = parseEvents(r.stdout);
    assert.ok(
      list.some((e) =>
        e.type === "agent:tool_result" && e.toolId === "read_file" && e.success
      ),
    );
    const text = list.map((e) => e.type === "agent:token" ? e.token : "")
      .join("");
    assert.equal(text, "Hello there, how can I help?");
    const costs = list.filter((e) => e.type === "cost:updated");
    assert.deepEqual(
      costs.map((e) =>
        e.type === "cost:updated" && [e.inputTokens, e.outputTokens, e.priced]
      ),
      [[50, 30, true], [12, 9, true]],
    );
    assert.deepEqual(server.requests.map((q) => q.path), [
      "/v1beta/models/gemini-3-flash-preview:streamGenerateContent",
      "/v1beta/models/gemini-3-flash-preview:streamGenerateContent",
    ]);
    for (const q of server.requests) {
      assert.equal(q.headers.get("x-goog-api-key"), KEY);
    }
    const recording = await Deno.readTextFile(`${dir.path}/rec.json`);
    for (const where of [r.stdout, r.stderr, recording]) {
      assert.ok(!where.includes(KEY), "the key never leaves the header");
    }

    // The recording replays the same turn with no server at all.
    const replay = await runCli(
      ["agent", "run", "a.agent.yaml", "--json", "--fixture", "rec.json"],
      {
        env: { RELAVIUM_HOME: `${dir.path}/home`, NO_COLOR: "1" },
        cwd: dir.path,
        stdin: "What is the secret word in notes.txt?\n",
      },
    );
    assert.equal(replay.code, 0, replay.stderr);
    const again = parseEvents(replay.stdout).map((e) =>
      e.type === "agent:token" ? e.token : ""
    ).join("");
    assert.equal(again, text);
    assert.equal(server.requests.length, 2, "the replay sent nothing");
  } finally {
    await server.close();
  }
});

Deno.test("chat: a persisted Gemini chat commits its turns; the key never reaches history.db", async () => {
  await using dir = await tempDir();
  const server = serve([sse(CALL), answer]);
  try {
    await setUp(dir.path, server);
    const chat = await runCli(["chat", "--agent", "a.agent.yaml"], {
      env: env(dir.path),
      cwd: dir.path,
      stdin: "What is the secret word in notes.txt?\n",
      fetch: loopbackFetch().fetch,
    });
    assert.equal(chat.code, 4, chat.stderr);
    assert.match(chat.stdout, /Hello there, how can I help\?/);
    const listed = await runCli(["chat-list", "--json"], {
      env: env(dir.path),
      cwd: dir.path,
    });
    assert.equal(listed.code, 0, listed.stderr);
    const id = String(
      JSON.parse(listed.stdout.trim().split("\n")[0] ?? "{}").sessionId,
    );
    const shown = await runCli(["chat-show", id, "--json"], {
      env: env(dir.path),
      cwd: dir.path,
    });
    assert.equal(shown.code, 0, shown.stderr);
    const turns = JSON.parse(shown.stdout).turns;
    assert.deepEqual(turns, [{
      user: "What is the secret word in notes.txt?",
      assistant: "Hello there, how can I help?",
      tools: ["read_file"],
      model: "gemini-3-flash-preview",
      compacted: false,
    }], "the turn, its tool round and its model are stored");
    const stored = await allFileText(`${dir.path}/home`);
    assert.ok(stored.length > 0);
    assert.ok(!stored.includes(KEY), "the key never reaches the store");
    assert.ok(!(chat.stdout + chat.stderr).includes(KEY));
  } finally {
    await server.close();
  }
});
