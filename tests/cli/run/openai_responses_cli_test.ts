/**
 * The CLI against a loopback server declared as `[[providers]] kind =
 * "openai-responses"` (`allow_local = true`): a `read_file` round trip the
 * server refuses unless the call's output and the reasoning item come
 * back, `--record` then `--fixture`, a persisted chat, and a fallback
 * chain across the four wire kinds; the planted key never leaves the
 * request header.
 */
import assert from "node:assert/strict";
import { parseEvents, runCli, tempDir, write } from "../_helpers.ts";
import {
  allFileText,
  anthropicReadNotes,
  fixture,
  loopbackFetch,
  serve,
  sse,
  type TestServer,
} from "../_fake_providers.ts";
import { CALL, stream, TEXT } from "../../llm/adapters/_responses_wire.ts";
import type { Reply } from "../../llm/adapters/_server.ts";

const KEY = "responses-planted-credential-9d2c51";
const NOTES = "The secret word is kumquat.\n";
const PROMPT = "What is the secret word in notes.txt?";

/** Answers only a request carrying the reasoning item and the call's output. */
function answered(server: () => TestServer): Reply {
  return (req) => {
    const body = JSON.parse(server().requests.at(-1)?.body ?? "{}");
    const input = (body.input ?? []) as Array<Record<string, unknown>>;
    const ok = input.some((i) =>
      i["type"] === "reasoning" &&
      i["encrypted_content"] === "gAAAAB-encrypted-2"
    ) &&
      input.some((i) =>
        i["type"] === "function_call_output" && i["call_id"] === "call_abc" &&
        String(i["output"]).includes("kumquat")
      );
    return ok ? stream(TEXT)(req) : new Response(
      JSON.stringify({
        error: {
          message: "No tool output found for function call call_abc.",
          type: "invalid_request_error",
        },
      }),
      { status: 400 },
    );
  };
}

function toolRound(): TestServer {
  const holder: { server?: TestServer } = {};
  holder.server = serve([
    stream(CALL, 5),
    answered(() => holder.server as TestServer),
  ]);
  return holder.server;
}

async function setUp(dir: string, extra = ""): Promise<void> {
  await write(`${dir}/notes.txt`, NOTES);
  await write(
    `${dir}/a.agent.yaml`,
    [
      "id: a",
      "name: A",
      "model: gpt-5.4",
      "provider: fake-responses",
      "system_prompt: Be terse.",
      "tools:",
      "  - read_file",
      extra,
    ].join("\n"),
  );
}

async function declare(dir: string, entries: string[]): Promise<void> {
  await write(`${dir}/.relavium/project.toml`, `${entries.join("\n\n")}\n`);
}

function entry(id: string, kind: string, url: string): string {
  return `[[providers]]\nid = "${id}"\nkind = "${kind}"\nbase_url = "${url}"\nallow_local = true`;
}

function env(dir: string): Record<string, string> {
  return {
    RELAVIUM_HOME: `${dir}/home`,
    RELAVIUM_FAKE_RESPONSES_API_KEY: KEY,
    NO_COLOR: "1",
  };
}

/** Serves the tool round as `fake-responses`, writes the agent, runs `body`. */
async function onToolRound(
  dir: string,
  body: (server: TestServer) => Promise<void>,
): Promise<void> {
  const server = toolRound();
  try {
    await declare(dir, [
      entry("fake-responses", "openai-responses", `${server.url}/v1`),
    ]);
    await setUp(dir);
    await body(server);
  } finally {
    await server.close();
  }
}

Deno.test("agent run: a read_file round trip through the Responses API, recorded and replayed", async () => {
  await using dir = await tempDir();
  await onToolRound(dir.path, async (server) => {
    const r = await runCli(
      ["agent", "run", "a.agent.yaml", "--json", "--record", "rec.json"],
      {
        env: env(dir.path),
        cwd: dir.path,
        stdin: `${PROMPT}\n`,
        fetch: loopbackFetch().fetch,
      },
    );
    assert.equal(r.code, 0, r.stderr);
    const events = parseEvents(r.stdout);
    assert.ok(
      events.some((e) =>
        e.type === "agent:tool_result" && e.toolId === "read_file" && e.success
      ),
    );
    const text = events.map((e) => e.type === "agent:token" ? e.token : "")
      .join("");
    assert.equal(text, "Hello there.");
    assert.deepEqual(
      events.flatMap((e) =>
        e.type === "cost:updated" ? [[e.inputTokens, e.outputTokens]] : []
      ),
      [[50, 20], [20, 40]],
    );
    assert.deepEqual(server.requests.map((q) => q.path), [
      "/v1/responses",
      "/v1/responses",
    ]);
    for (const q of server.requests) {
      assert.equal(q.headers.get("authorization"), `Bearer ${KEY}`);
      assert.equal(JSON.parse(q.body).store, false);
    }
    const recording = await Deno.readTextFile(`${dir.path}/rec.json`);
    for (const where of [r.stdout, r.stderr, recording]) {
      assert.ok(!where.includes(KEY), "the key never leaves the header");
    }
    const replay = await runCli(
      ["agent", "run", "a.agent.yaml", "--json", "--fixture", "rec.json"],
      {
        env: { RELAVIUM_HOME: `${dir.path}/home`, NO_COLOR: "1" },
        cwd: dir.path,
        stdin: `${PROMPT}\n`,
      },
    );
    assert.equal(replay.code, 0, replay.stderr);
    assert.equal(
      parseEvents(replay.stdout).map((e) =>
        e.type === "agent:token" ? e.token : ""
      ).join(""),
      text,
    );
    assert.equal(server.requests.length, 2, "the replay sent nothing");
  });
});

Deno.test("chat: a persisted Responses chat commits its turns; the key never reaches the store", async () => {
  await using dir = await tempDir();
  await onToolRound(dir.path, async () => {
    const chat = await runCli(["chat", "--agent", "a.agent.yaml"], {
      env: env(dir.path),
      cwd: dir.path,
      stdin: `${PROMPT}\n`,
      fetch: loopbackFetch().fetch,
    });
    assert.equal(chat.code, 0, chat.stderr);
    assert.match(chat.stdout, /Hello there\./);
    const listed = await runCli(["chat-list", "--json"], {
      env: env(dir.path),
      cwd: dir.path,
    });
    const id = String(
      JSON.parse(listed.stdout.trim().split("\n")[0] ?? "{}").sessionId,
    );
    const shown = await runCli(["chat-show", id, "--json"], {
      env: env(dir.path),
      cwd: dir.path,
    });
    assert.equal(shown.code, 0, shown.stderr);
    assert.deepEqual(
      JSON.parse(shown.stdout).turns.map((t: Record<string, unknown>) => [
        t["user"],
        t["assistant"],
        t["tools"],
      ]),
      [[PROMPT, "Hello there.", ["read_file"]]],
    );
    const stored = await allFileText(`${dir.path}/home`);
    assert.ok(
      !stored.includes(KEY) && !(chat.stdout + chat.stderr).includes(KEY),
    );
  });
});

Deno.test("a fallback chain across the four kinds: Responses ⇒ Gemini ⇒ Anthropic", async () => {
  await using dir = await tempDir();
  const unavailable = (): Response =>
    new Response(
      JSON.stringify({
        error: { message: "overloaded", type: "server_error" },
      }),
      { status: 503 },
    );
  const geminiDown = (): Response =>
    new Response(
      JSON.stringify({
        error: {
          code: 503,
          message: "The model is overloaded.",
          status: "UNAVAILABLE",
        },
      }),
      { status: 503 },
    );
  const responses = serve([unavailable]);
  const gemini = serve([geminiDown]);
  const anthropic = serve([
    sse(anthropicReadNotes()),
    sse(fixture("anthropic", "text.sse")),
  ]);
  try {
    await declare(dir.path, [
      entry("fake-responses", "openai-responses", `${responses.url}/v1`),
      entry("fake-gemini", "gemini", `${gemini.url}/v1beta`),
      entry("fake-anthropic", "anthropic", anthropic.url),
    ]);
    await setUp(
      dir.path,
      [
        "fallback_chain:",
        "  - model: gemini-2.5-flash",
        "    provider: fake-gemini",
        "    max_attempts: 1",
        "  - model: claude-sonnet-4-6",
        "    provider: fake-anthropic",
        "    max_attempts: 1",
      ].join("\n"),
    );
    const r = await runCli(["agent", "run", "a.agent.yaml", "--json"], {
      env: {
        ...env(dir.path),
        RELAVIUM_FAKE_GEMINI_API_KEY: "gemini-planted-0123456789",
        RELAVIUM_FAKE_ANTHROPIC_API_KEY: "anthropic-planted-0123456789",
      },
      cwd: dir.path,
      stdin: `${PROMPT}\n`,
      fetch: loopbackFetch().fetch,
    });
    assert.equal(r.code, 0, r.stderr);
    // Each round walks the chain again: the primary's retries, then Gemini.
    assert.ok(responses.requests.length >= 2, "tried in each round");
    assert.ok(gemini.requests.length >= 2, "tried in each round");
    assert.ok(responses.requests.every((q) => q.path === "/v1/responses"));
    assert.ok(
      gemini.requests.every((q) =>
        q.path === "/v1beta/models/gemini-2.5-flash:streamGenerateContent"
      ),
    );
    assert.equal(anthropic.requests.length, 2, "the tool round on the last");
    const events = parseEvents(r.stdout);
    assert.ok(
      events.some((e) =>
        e.type === "agent:tool_result" && e.toolId === "read_file" && e.success
      ),
    );
    const done = events.find((e) => e.type === "session:turn_completed");
    assert.ok(done?.type === "session:turn_completed");
    assert.equal(done.tokensUsed.model, "claude-sonnet-4-6");
  } finally {
    await Promise.all([responses.close(), gemini.close(), anthropic.close()]);
  }
});

Deno.test("the Responses adapter loads only on its first call: not in cli.ts's closure, the registry's, nor the Chat Completions adapter's", async () => {
  const { staticClosure } = await import("../_module_graph.ts");
  const adapter = (m: string) =>
    /\/llm\/openai_responses\/(?!_lazy|_base)/.test(m);
  const cli = await staticClosure("cli.ts");
  assert.deepEqual(cli.filter(adapter), []);
  const chat = await staticClosure("llm/openai/provider.ts");
  assert.ok(chat.some((m) => m.endsWith("/llm/openai_responses/_lazy.ts")));
  assert.deepEqual(chat.filter(adapter), []);
  const registry = await staticClosure("llm/provider_registry.ts");
  assert.deepEqual(registry.filter(adapter), []);
});
