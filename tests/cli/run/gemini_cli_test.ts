/**
 * The CLI against a loopback server declared as `[[providers]] kind =
 * "gemini"` (`allow_local = true`): a `read_file` round trip the server
 * refuses unless the call's result and thought signature come back, a
 * persisted chat, `--record` then `--fixture` on the recorded chunks, a
 * retried 503; the planted key never leaves the request header.
 */
import assert from "node:assert/strict";
import type { SessionEvent } from "../../../schema/event.ts";
import { openSqliteStore } from "../../../store/sqlite_store.ts";
import { parseEvents, runCli, signature, tempDir, write } from "../_helpers.ts";
import { staticClosure } from "../_module_graph.ts";
import { scenario } from "../_kit/scenario.ts";
import {
  agentYaml,
  allFileText,
  assertNoKey as assertNoPlantedKey,
  fixture,
  http,
  keyEnv,
  link,
  runChain,
  runLoopback,
  serve,
  sse,
  type TestServer,
} from "../_fake_providers.ts";
import {
  chunk,
  refuseUnlessAnswered,
  SIG_A,
  SIG_B,
  USAGE,
  wire,
} from "../../llm/adapters/_gemini_wire.ts";

const KEY = "AIzaSyPLANTED-cli-gemini-4b7d9e1f3a5c";
const MODEL = "gemini-3.8-flash";
const NOTES = "The secret word is kumquat.\n";
const PROMPT = "What is the secret word in notes.txt?";

/** The model's first turn: a thought, then a signed call to read_file. */
const CALL = wire([
  chunk([{
    text: "I should read it.",
    thought: true,
    thoughtSignature: SIG_A,
  }]),
  chunk([{
    functionCall: { name: "read_file", args: { path: "notes.txt" } },
    thoughtSignature: SIG_B,
  }], { finishReason: "STOP", usage: USAGE }),
]);

/** Replies: the call, then the answer only if the call was answered. */
function toolRound(): { server: TestServer } {
  const holder: { server?: TestServer } = {};
  const answer = refuseUnlessAnswered(
    { name: "read_file", signature: SIG_B, result: "kumquat" },
    () => holder.server?.requests.at(-1)?.body ?? "{}",
  );
  holder.server = serve([sse(CALL, 3), answer]);
  return { server: holder.server };
}

async function declareGemini(dir: string, url: string): Promise<void> {
  await write(
    `${dir}/.relavium/project.toml`,
    [
      "[[providers]]",
      'id = "fake-gemini"',
      'kind = "gemini"',
      `base_url = "${url}/v1beta"`,
      "allow_local = true",
      "",
    ].join("\n"),
  );
}

function env(dir: string): Record<string, string> {
  return {
    RELAVIUM_HOME: `${dir}/home`,
    RELAVIUM_FAKE_GEMINI_API_KEY: KEY,
  };
}

function assertNoKey(text: string, where: string): void {
  assertNoPlantedKey(text, where, [KEY]);
}

function checkRequests(server: TestServer, count: number): void {
  assert.equal(server.requests.length, count);
  for (const q of server.requests) {
    assert.equal(
      q.path,
      `/v1beta/models/${MODEL}:streamGenerateContent`,
    );
    assert.equal(q.headers.get("x-goog-api-key"), KEY);
  }
}

function completed(events: readonly SessionEvent[]) {
  const done = events.find((e) => e.type === "session:turn_completed");
  assert.ok(done?.type === "session:turn_completed");
  return done;
}

async function agentRun(
  dir: string,
  extra: string[] = [],
): Promise<{ code: number; stdout: string; stderr: string }> {
  await write(`${dir}/notes.txt`, NOTES);
  await write(
    `${dir}/a.agent.yaml`,
    agentYaml({ provider: "fake-gemini", model: MODEL, tools: ["read_file"] }),
  );
  return await runLoopback(
    dir,
    ["agent", "run", "a.agent.yaml", "--json", ...extra],
    { env: env(dir), stdin: `${PROMPT}\n` },
  );
}

Deno.test("agent run: a read_file round trip against a loopback Gemini server streams the answer and carries usage", async () => {
  await using dir = await tempDir();
  const { server } = toolRound();
  try {
    await declareGemini(dir.path, server.url);
    const r = await agentRun(dir.path);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, "");
    const events = parseEvents(r.stdout);
    const sig = signature(events);
    assert.ok(sig.includes("agent:tool_call:read_file"));
    assert.ok(sig.includes("agent:tool_result:read_file"));
    assert.equal(sig.at(-2), "session:turn_completed");
    const text = events.flatMap((e) =>
      e.type === "agent:token" ? [e.token] : []
    ).join("");
    assert.equal(text, "The secret word is kumquat.");
    const done = completed(events);
    // Two calls of USAGE each: 20 uncached + 100 cached in, 80 out.
    assert.equal(done.tokensUsed.model, MODEL);
    assert.equal(done.tokensUsed.input, 40);
    assert.equal(done.tokensUsed.output, 160);
    const costs = events.flatMap((e) => e.type === "cost:updated" ? [e] : []);
    assert.equal(costs.length, 2);
    // Priced from the catalog row: 20 uncached at $0.75, 100 cached at
    // $0.075, 80 output at $3.75 per million tokens, per call.
    for (const c of costs) {
      assert.equal(c.priced, true);
      assert.equal(c.costMicrocents, 1500 + 750 + 30_000);
    }
    checkRequests(server, 2);
    assertNoKey(r.stdout + r.stderr, "the output");
  } finally {
    await server.close();
  }
});

Deno.test("chat: a persisted Gemini chat commits its turns; history.db holds no key", async () => {
  await using dir = await tempDir();
  const { server } = toolRound();
  try {
    await declareGemini(dir.path, server.url);
    await write(`${dir.path}/notes.txt`, NOTES);
    const r = await runLoopback(
      dir.path,
      ["chat", "--model", MODEL, "--provider", "fake-gemini", "--json"],
      { env: env(dir.path), stdin: `${PROMPT}\n` },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, "");
    const events = parseEvents(r.stdout);
    completed(events);
    checkRequests(server, 2);
    const id = events[0]?.sessionId ?? "";
    const store = openSqliteStore(`${dir.path}/home/history.db`, {
      clock: { now: () => 0 },
      ids: () => crypto.randomUUID(),
    });
    try {
      const loaded = store.load(id);
      assert.ok(loaded !== undefined, "the session was stored");
      const stored = JSON.stringify(loaded.messages);
      assert.match(stored, /kumquat/);
      // Provider replay tokens never reach a stored row.
      assert.ok(!stored.includes(SIG_B), "no thought signature is stored");
      assert.ok(loaded.messages.length >= 4);
    } finally {
      store.close();
    }
    assertNoKey(r.stdout + r.stderr, "the output");
    assertNoKey(await allFileText(`${dir.path}/home`), "the history files");
  } finally {
    await server.close();
  }
});

Deno.test("agent run --record on Gemini, then --fixture replays the chunks offline; the cassette holds no key", async () => {
  await using dir = await tempDir();
  const { server } = toolRound();
  let recorded: string[] = [];
  try {
    await declareGemini(dir.path, server.url);
    const r = await agentRun(dir.path, ["--record", "c.json"]);
    assert.equal(r.code, 0, r.stderr);
    recorded = signature(parseEvents(r.stdout));
    checkRequests(server, 2);
  } finally {
    await server.close();
  }
  const text = await Deno.readTextFile(`${dir.path}/c.json`);
  assertNoKey(text, "the cassette");
  const cassette = JSON.parse(text);
  const calls: Array<{ chunks: Array<Record<string, unknown>> }> =
    cassette.providers["fake-gemini"].calls;
  assert.equal(calls.length, 2);
  assert.ok(
    calls[0]?.chunks.some((c) =>
      c.type === "tool_call_end" && c.signature === SIG_B
    ),
    "the call's signature is recorded on its chunk",
  );
  const replay = await runCli(
    ["agent", "run", "a.agent.yaml", "--json", "--fixture", "c.json"],
    {
      env: { RELAVIUM_HOME: `${dir.path}/home` },
      cwd: dir.path,
      stdin: `${PROMPT}\n`,
    },
  );
  assert.equal(replay.code, 0, replay.stderr);
  assert.deepEqual(signature(parseEvents(replay.stdout)), recorded);
});

/** A Gemini error response (a `google.rpc.Status` body). */
function rpcError(
  status: number,
  error: Record<string, unknown>,
  headers: Record<string, string> = {},
): () => Response {
  return () =>
    new Response(JSON.stringify({ error: { code: status, ...error } }), {
      status,
      headers: { "content-type": "application/json", ...headers },
    });
}

Deno.test("agent run: a Gemini 503 or 429 is retried (after RetryInfo's delay) and the next attempt serves", async (t) => {
  const cases = [
    {
      name: "503 UNAVAILABLE",
      reply: rpcError(503, {
        message: "The model is overloaded. Please try again later.",
        status: "UNAVAILABLE",
      }, { "retry-after": "0" }),
    },
    {
      name: "429 RESOURCE_EXHAUSTED with a RetryInfo delay",
      reply: rpcError(429, {
        message: "Quota exceeded.",
        status: "RESOURCE_EXHAUSTED",
        details: [{
          "@type": "type.googleapis.com/google.rpc.RetryInfo",
          retryDelay: "0.01s",
        }],
      }),
    },
  ];
  for (const c of cases) {
    await t.step(c.name, async () => {
      await using dir = await tempDir();
      const server = serve([
        c.reply,
        sse(wire([
          chunk([{ text: "Hello." }], { finishReason: "STOP", usage: USAGE }),
        ])),
      ]);
      try {
        await declareGemini(dir.path, server.url);
        await write(
          `${dir.path}/a.agent.yaml`,
          agentYaml({ provider: "fake-gemini", model: MODEL }),
        );
        const r = await runLoopback(
          dir.path,
          ["agent", "run", "a.agent.yaml", "--json"],
          { env: env(dir.path), stdin: "Hello" },
        );
        assert.equal(r.code, 0, r.stderr);
        assert.equal(
          completed(parseEvents(r.stdout)).tokensUsed.model,
          MODEL,
        );
        checkRequests(server, 2);
        assertNoKey(r.stdout + r.stderr, "the output");
      } finally {
        await server.close();
      }
    });
  }
});

Deno.test("the Gemini adapter is loaded by its first call only: not by cli.ts, nor by the provider registry", async () => {
  const adapter = (m: string) => /\/llm\/gemini\/(?!_base_url)/.test(m);
  const cli = await staticClosure("cli.ts");
  assert.ok(!cli.some((m) => m.includes("/llm/gemini/")), "cli.ts");
  const registry = await staticClosure("llm/provider_registry.ts");
  assert.ok(registry.some((m) => m.endsWith("/llm/provider_table.ts")));
  assert.deepEqual(registry.filter(adapter), []);
  assert.ok(!registry.some((m) => m.endsWith("/llm/anthropic/provider.ts")));
});

Deno.test("[[providers]] kind gemini: a bad kind or base URL is refused naming the file and field", async () => {
  await using s = await scenario({ env: { NO_COLOR: undefined } });
  const showWith = async (kind: string, baseUrl: string) => {
    await s.project(
      `[[providers]]\nid = "g"\nkind = "${kind}"\nbase_url = "${baseUrl}"\n`,
    );
    return await s.run(["config", "show"], { code: 2 });
  };
  const bad = await showWith("gemeni", "https://g.example.com/v1beta");
  assert.match(
    bad.stderr,
    /project\.toml:3: providers\[0\]\.kind: must be anthropic, openai-compatible, openai-responses or gemini/,
  );
  const local = await showWith("gemini", "http://127.0.0.1:9/v1beta");
  assert.match(local.stderr, /providers\[0\]\.base_url: .*allow_local = true/);
});

Deno.test("doctor: the built-in gemini key and URL; --permissions grants its host", async () => {
  await using dir = await tempDir();
  await write(
    `${dir.path}/home/config.toml`,
    `[chat]\ndefault_model = "${MODEL}"\n`,
  );
  const r = await runCli(["doctor", "--json"], {
    env: {
      RELAVIUM_HOME: `${dir.path}/home`,
      GEMINI_API_KEY: KEY,
    },
    cwd: dir.path,
  });
  assertNoKey(r.stdout + r.stderr, "the doctor report");
  const report = JSON.parse(r.stdout);
  assert.deepEqual(
    report.keys.find((k: { provider: string }) => k.provider === "gemini"),
    { provider: "gemini", status: "found", variable: "GEMINI_API_KEY" },
  );
  assert.deepEqual(
    report.endpoints.find((e: { provider: string }) => e.provider === "gemini"),
    {
      provider: "gemini",
      baseUrl: "https://generativelanguage.googleapis.com/v1beta",
      source: "built-in",
      custom: false,
    },
  );
  const perms = await runCli(["doctor", "--permissions", "--json"], {
    env: { RELAVIUM_HOME: `${dir.path}/home`, GEMINI_API_KEY: KEY },
    cwd: dir.path,
  });
  const flags: string[] = JSON.parse(perms.stdout).permissions.flags;
  const net = flags.find((f) => f.startsWith("--allow-net=")) ?? "";
  assert.ok(
    net.split("=")[1]?.split(",").includes(
      "generativelanguage.googleapis.com:443",
    ),
    net,
  );
});

Deno.test("fallback across kinds: Anthropic 529 → Gemini, and Gemini 503 → OpenAI-compatible", async (t) => {
  const geminiText = sse(wire([
    chunk([{ text: "From Gemini." }], { finishReason: "STOP", usage: USAGE }),
  ]));
  const unavailable = rpcError(503, {
    message: "Overloaded",
    status: "UNAVAILABLE",
  }, { "retry-after": "0" });
  const overloaded = http(fixture("anthropic", "error_529.http"), {
    "retry-after": "0",
  });
  const cases = [
    {
      name: "Anthropic 529 → Gemini",
      chain: [
        link("fake-anthropic", "claude-sonnet-4-6", Array(3).fill(overloaded)),
        link("fake-gemini", MODEL, [geminiText]),
      ] as const,
    },
    {
      name: "Gemini 503 → OpenAI-compatible",
      chain: [
        link("fake-gemini", MODEL, Array(3).fill(unavailable)),
        link("fake-openai", "gpt-5.4-mini", [
          sse(fixture("openai", "text.sse")),
        ]),
      ] as const,
    },
  ];
  for (const c of cases) {
    await t.step(c.name, async () => {
      await using dir = await tempDir();
      const { r, requests } = await runChain(
        dir.path,
        [...c.chain],
        ["agent", "run", "a.agent.yaml", "--json"],
        { env: { ...keyEnv(dir.path), ...env(dir.path) }, stdin: "Hello" },
      );
      assert.equal(r.code, 0, r.stderr);
      const done = completed(parseEvents(r.stdout));
      assert.equal(done.tokensUsed.model, c.chain[1].model);
      assert.deepEqual(requests, [3, 1], "the primary's attempts, then one");
      assertNoKey(r.stdout + r.stderr, "the output");
    });
  }
});
