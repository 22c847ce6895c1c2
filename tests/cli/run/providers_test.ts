/**
 * End to end through `main(argv, io)` against loopback fake providers
 * declared as project `[[providers]]`: tool rounds, fallback,
 * keys that never leak, and the bad inputs that must stop before any
 * request. The io's `fetch` reaches only 127.0.0.1.
 */
import assert from "node:assert/strict";
import type { SessionEvent } from "../../../schema/event.ts";
import { parseEvents, runCli, signature, tempDir, write } from "../_helpers.ts";
import {
  agentYaml,
  allFileText,
  anthropicReadNotes,
  assertNoKey,
  type ChainLink,
  declareProviders,
  type FakeEntry,
  fixture,
  http,
  keyEnv,
  link,
  localEntry,
  loopbackFetch,
  openaiReadNotes,
  PLANTED,
  runChain,
  runLoopback,
  serve,
  sse,
  type TestServer,
  withFakeAnthropic,
  withServers,
} from "../_fake_providers.ts";
import type { Reply } from "../../llm/adapters/_server.ts";

const NOTES = "The secret word is kumquat.\n";
const PROMPT = "What is the secret word in notes.txt?";

const TOOL_ROUND = [
  "session:started",
  "session:turn_started",
  "agent:token",
  "cost:updated",
  "agent:tool_call:read_file",
  "agent:tool_result:read_file",
  "agent:token",
  "agent:token",
  "agent:token",
  "cost:updated",
  "session:turn_completed",
  "session:cancelled",
];

function toolSucceeded(events: readonly SessionEvent[]): boolean {
  return events.some((e) =>
    e.type === "agent:tool_result" && e.toolId === "read_file" && e.success
  );
}

/** Serves `replies`, declares `entry` at the server, writes notes.txt, runs `body`. */
async function withNotesServer(
  dir: string,
  replies: Reply[],
  entry: (url: string) => FakeEntry,
  body: (server: TestServer) => Promise<void>,
): Promise<void> {
  const server = serve(replies);
  await withServers([server], async () => {
    await declareProviders(dir, [entry(server.url)]);
    await write(`${dir}/notes.txt`, NOTES);
    await body(server);
  });
}

Deno.test("agent run: a tool round against a loopback Anthropic server ([[providers]] kind anthropic)", async () => {
  await using dir = await tempDir();
  const replies = [
    sse(anthropicReadNotes()),
    sse(fixture("anthropic", "text.sse")),
  ];
  await withNotesServer(
    dir.path,
    replies,
    (url) => localEntry("fake-anthropic", "anthropic", url),
    async (server) => {
      await write(
        `${dir.path}/a.agent.yaml`,
        agentYaml({
          provider: "fake-anthropic",
          model: "claude-sonnet-4-6",
          tools: ["read_file"],
        }),
      );
      const r = await runLoopback(dir.path, [
        "agent",
        "run",
        "a.agent.yaml",
        "--json",
      ], {
        env: keyEnv(dir.path),
        stdin: `${PROMPT}\n`,
      });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stderr, "", "a clean --json run has an empty stderr");
      const events = parseEvents(r.stdout);
      assert.deepEqual(signature(events), TOOL_ROUND);
      assert.ok(toolSucceeded(events), "read_file read the workspace file");
      assert.deepEqual(server.requests.map((q) => q.path), [
        "/v1/messages",
        "/v1/messages",
      ]);
      for (const q of server.requests) {
        assert.equal(q.headers.get("x-api-key"), PLANTED.anthropic);
        assert.equal(q.headers.get("anthropic-version"), "2023-06-01");
      }
      const second = JSON.parse(server.requests[1]?.body ?? "{}");
      assert.match(JSON.stringify(second.messages), /tool_result.*kumquat/);
      assertNoKey(r.stdout + r.stderr, "the output");
    },
  );
});

Deno.test("chat: a tool round against a fake OpenAI-compatible server; the key never reaches history.db", async () => {
  await using dir = await tempDir();
  const replies = [sse(openaiReadNotes()), sse(fixture("openai", "text.sse"))];
  await withNotesServer(
    dir.path,
    replies,
    (url) => localEntry("fake-openai", "openai-compatible", `${url}/v1/`),
    async (server) => {
      // The built-in read-only chat agent on a model of the fake provider.
      const r = await runLoopback(
        dir.path,
        [
          "chat",
          "--model",
          "qwen2.5:7b",
          "--provider",
          "fake-openai",
          "--json",
        ],
        { env: keyEnv(dir.path), stdin: `${PROMPT}\n` },
      );
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stderr, "");
      const events = parseEvents(r.stdout);
      // No text before this fixture's tool call.
      assert.deepEqual(
        signature(events),
        TOOL_ROUND.filter((s, i) => !(i === 2 && s === "agent:token")),
      );
      assert.ok(toolSucceeded(events));
      assert.deepEqual(server.requests.map((q) => q.path), [
        "/v1/chat/completions",
        "/v1/chat/completions",
      ]);
      for (const q of server.requests) {
        assert.equal(
          q.headers.get("authorization"),
          `Bearer ${PLANTED.openai}`,
        );
      }
      const second = JSON.parse(server.requests[1]?.body ?? "{}");
      const toolMessage = second.messages.find((m: { role: string }) =>
        m.role === "tool"
      );
      assert.match(String(toolMessage?.content), /kumquat/);
      // A compatible server gets max_tokens, never max_completion_tokens.
      assert.ok(!("max_completion_tokens" in second));
      assertNoKey(r.stdout + r.stderr, "the output");
      const stored = await allFileText(`${dir.path}/home`);
      assert.match(stored, /secret word/, "the session was stored");
      assertNoKey(stored, "the history files");
    },
  );
});

type FakeId = "fake-anthropic" | "fake-openai";

/** The wire fixture folder of a fake and a file name in it. */
function fake([id, , file]: [FakeId, string, string]): [string, string] {
  return [id === "fake-anthropic" ? "anthropic" : "openai", file];
}

Deno.test("fallback: the primary's 529 / 503 after its retries, then the next chain entry serves", async (t) => {
  /** The primary fails three times with `failure`, the fallback answers. */
  const chainOf = (
    failure: [FakeId, string, string],
    answer: [FakeId, string, string],
  ): [ChainLink, ChainLink] => [
    link(
      failure[0],
      failure[1],
      Array(3).fill(http(fixture(...fake(failure)))),
    ),
    link(answer[0], answer[1], [sse(fixture(...fake(answer)))]),
  ];
  await t.step("agent run: Anthropic 529 → OpenAI-compatible", async () => {
    await using dir = await tempDir();
    const { r, requests } = await runChain(
      dir.path,
      chainOf(
        ["fake-anthropic", "claude-sonnet-4-6", "error_529.http"],
        ["fake-openai", "gpt-5.4-mini", "text.sse"],
      ),
      ["agent", "run", "a.agent.yaml", "--json"],
      { env: keyEnv(dir.path), stdin: "Hello" },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, "");
    const events = parseEvents(r.stdout);
    // The answer of TOOL_ROUND's second call, with no tool round before it.
    assert.deepEqual(signature(events), [
      ...TOOL_ROUND.slice(0, 2),
      ...TOOL_ROUND.slice(-6),
    ]);
    const done = events.find((e) => e.type === "session:turn_completed");
    assert.equal(
      done?.type === "session:turn_completed" ? done.tokensUsed.model : "",
      "gpt-5.4-mini",
      "the fallback's model served the turn",
    );
    assert.deepEqual(requests, [3, 1], "three attempts, then the fallback");
  });
  await t.step("chat: OpenAI-compatible 503 → Anthropic", async () => {
    await using dir = await tempDir();
    const { r, requests } = await runChain(
      dir.path,
      chainOf(
        ["fake-openai", "gpt-5.4-mini", "error_503.http"],
        ["fake-anthropic", "claude-haiku-4-5", "text.sse"],
      ),
      ["chat", "--agent", "a.agent.yaml"],
      { env: { ...keyEnv(dir.path), NO_COLOR: "1" }, stdin: "Hello\n" },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "Bonjour ! Ça va très bien, merci 😊.\n");
    assert.deepEqual(requests, [3, 1]);
    assertNoKey(r.stdout + r.stderr, "the output");
  });
});

Deno.test("a fallback without a key: one warning before the session, the chain skips it", async () => {
  await using dir = await tempDir();
  const replies = [sse(fixture("anthropic", "text.sse"))];
  const fallback = [{ provider: "openai", model: "gpt-5.4-mini" }];
  await withFakeAnthropic(dir.path, replies, async (server) => {
    const net = loopbackFetch();
    // No key at all: the local primary sends no auth header.
    const r = await runCli(["agent", "run", "a.agent.yaml", "--json"], {
      env: { RELAVIUM_HOME: `${dir.path}/home` },
      cwd: dir.path,
      stdin: "Hello",
      fetch: net.fetch,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      r.stderr,
      "notice: Skipping fallback openai/gpt-5.4-mini: no API key (set RELAVIUM_OPENAI_API_KEY or OPENAI_API_KEY)\n",
    );
    assert.equal(parseEvents(r.stdout).at(-1)?.type, "session:cancelled");
    assert.equal(server.requests[0]?.headers.get("x-api-key"), null);
    assert.deepEqual(net.urls, [`${server.url}/v1/messages`]);
  }, fallback);
});

Deno.test("bad input stops before any request: exit 2, a message naming the key or variable", async (t) => {
  await using dir = await tempDir();
  const server = serve([]);
  const net = loopbackFetch();
  const agent = (provider: string, model = "claude-sonnet-4-6"): string =>
    agentYaml({ provider, model });
  const cases: Array<{
    name: string;
    toml?: string;
    agent: string;
    env?: Record<string, string>;
    argv?: string[];
    code: string;
    message: RegExp;
  }> = [
    {
      name: "a non-https base URL without allow_local",
      toml:
        `[[providers]]\nid = "fake-anthropic"\nkind = "anthropic"\nbase_url = "${server.url}"\n`,
      agent: agent("fake-anthropic"),
      code: "invalid_config",
      message:
        /project\.toml:4: providers\[0\]\.base_url: .*allow_local = true/,
    },
    {
      name: "http to a public host, even with allow_local",
      toml:
        `[[providers]]\nid = "gw"\nkind = "openai-compatible"\nbase_url = "http://llm.example.com/v1"\nallow_local = true\n`,
      agent: agent("gw", "m"),
      code: "invalid_config",
      message: /project\.toml:4: providers\[0\]\.base_url: must use https/,
    },
    {
      name: "a cloud metadata address, even with allow_local",
      toml:
        `[[providers]]\nid = "gw"\nkind = "openai-compatible"\nbase_url = "http://169.254.169.254/v1"\nallow_local = true\n`,
      agent: agent("gw", "m"),
      code: "invalid_config",
      message: /providers\[0\]\.base_url: must not point at a cloud metadata/,
    },
    {
      name: "credentials in the base URL",
      toml:
        `[[providers]]\nid = "gw"\nkind = "openai-compatible"\nbase_url = "https://u:p@llm.example.com/v1"\n`,
      agent: agent("gw", "m"),
      code: "invalid_config",
      message: /providers\[0\]\.base_url: must not embed credentials/,
    },
    {
      name: "RELAVIUM_ANTHROPIC_BASE_URL on loopback",
      agent: agent("anthropic"),
      env: {
        RELAVIUM_ANTHROPIC_BASE_URL: server.url,
        ANTHROPIC_API_KEY: PLANTED.anthropic,
      },
      code: "invalid_config",
      message: /RELAVIUM_ANTHROPIC_BASE_URL: must be a public https URL/,
    },
    {
      name: "a missing key for a [[providers]] entry",
      toml:
        `[[providers]]\nid = "llm-gw"\nkind = "openai-compatible"\nbase_url = "https://llm.example.com/v1"\n`,
      agent: agent("llm-gw", "m"),
      code: "provider_auth",
      message: /No API key for provider llm-gw: set RELAVIUM_LLM_GW_API_KEY$/,
    },
    {
      name: "a missing key for a built-in",
      agent: agent("anthropic"),
      code: "provider_auth",
      message: /set RELAVIUM_ANTHROPIC_API_KEY or ANTHROPIC_API_KEY$/,
    },
    {
      name: "a malformed agent provider reference",
      agent: agent("no-such-provider"),
      env: { ANTHROPIC_API_KEY: PLANTED.anthropic },
      code: "provider_config",
      message: /Unknown provider "no-such-provider"/,
    },
    {
      name: "a missing key for the built-in gemini",
      agent: agent("gemini", "gemini-2.5-pro"),
      code: "provider_auth",
      message: /set RELAVIUM_GEMINI_API_KEY or GEMINI_API_KEY$/,
    },
    {
      name: "--record with --fixture",
      agent: agent("anthropic"),
      env: { ANTHROPIC_API_KEY: PLANTED.anthropic },
      argv: ["--record", "r.json", "--fixture", "f.json"],
      code: "usage",
      message: /--record and --fixture cannot be combined/,
    },
    {
      name: "--record into a missing folder",
      agent: agent("anthropic"),
      env: { ANTHROPIC_API_KEY: PLANTED.anthropic },
      argv: ["--record", "no/such/dir/c.json"],
      code: "not_found",
      message: /no such folder for --record/,
    },
  ];
  await withServers([server], async () => {
    for (const c of cases) {
      await t.step(c.name, async () => {
        await Deno.remove(`${dir.path}/.relavium`, { recursive: true })
          .catch(() => {});
        if (c.toml !== undefined) {
          await write(`${dir.path}/.relavium/project.toml`, c.toml);
        }
        await write(`${dir.path}/a.agent.yaml`, c.agent);
        for (
          const command of [["agent", "run", "a.agent.yaml"], [
            "chat",
            "--agent",
            "a.agent.yaml",
          ]]
        ) {
          const r = await runCli([...command, ...(c.argv ?? []), "--json"], {
            env: { RELAVIUM_HOME: `${dir.path}/home`, ...c.env },
            cwd: dir.path,
            stdin: "Hello\n",
            fetch: net.fetch,
          });
          assert.equal(r.code, 2, r.stderr);
          assert.equal(r.stdout, "");
          const e = JSON.parse(r.stderr);
          assert.equal(e.code, c.code);
          assert.match(e.message, c.message);
          assertNoKey(r.stderr, "the error");
        }
      });
    }
  });
  assert.deepEqual(net.urls, [], "no request was attempted");
  assert.equal(server.requests.length, 0, "the fake server saw nothing");
  await assert.rejects(
    () => Deno.stat(`${dir.path}/home/history.db`),
    Deno.errors.NotFound,
  );
});

Deno.test("doctor: key presence and the effective base URL per provider; --permissions allows each provider host", async () => {
  await using dir = await tempDir();
  await declareProviders(dir.path, [
    localEntry("fake-anthropic", "anthropic", "http://127.0.0.1:8799/"),
  ]);
  const env = {
    RELAVIUM_HOME: `${dir.path}/home`,
    ANTHROPIC_API_KEY: PLANTED.anthropic,
    RELAVIUM_OPENAI_BASE_URL: "https://gw.example.com/v1",
  };
  const r = await runCli(["doctor", "--json"], { env, cwd: dir.path });
  assert.equal(r.code, 0, r.stderr);
  assertNoKey(r.stdout + r.stderr, "the doctor report");
  const report = JSON.parse(r.stdout);
  assert.deepEqual(report.endpoints, [
    {
      provider: "anthropic",
      baseUrl: "https://api.anthropic.com",
      source: "built-in",
      custom: false,
    },
    {
      provider: "openai",
      baseUrl: "https://gw.example.com/v1",
      source: "env",
      custom: true,
    },
    {
      provider: "gemini",
      baseUrl: "https://generativelanguage.googleapis.com/v1beta",
      source: "built-in",
      custom: false,
    },
    {
      provider: "deepseek",
      baseUrl: "https://api.deepseek.com",
      source: "built-in",
      custom: false,
    },
    {
      provider: "fake-anthropic",
      baseUrl: "http://127.0.0.1:8799",
      source: "project",
      custom: true,
      allowLocal: true,
    },
  ]);
  assert.deepEqual(
    report.keys.find((k: { provider: string }) =>
      k.provider === "fake-anthropic"
    ),
    {
      provider: "fake-anthropic",
      status: "no-auth",
      tried: ["RELAVIUM_FAKE_ANTHROPIC_API_KEY"],
    },
  );
  const plain = await runCli(["doctor"], { env, cwd: dir.path });
  assert.match(
    plain.stdout,
    /^ {2}fake-anthropic http:\/\/127\.0\.0\.1:8799 \(project, allow_local\)$/m,
  );
  assert.match(
    plain.stdout,
    /^ {2}gemini +https:\/\/generativelanguage\.googleapis\.com\/v1beta \(built-in\)$/m,
  );
  const perms = await runCli(["doctor", "--permissions", "--json"], {
    env,
    cwd: dir.path,
  });
  assert.equal(perms.code, 0, perms.stderr);
  const flags: string[] = JSON.parse(perms.stdout).permissions.flags;
  const net = flags.find((f) => f.startsWith("--allow-net="));
  assert.deepEqual(
    net?.slice("--allow-net=".length).split(",").sort(),
    ["127.0.0.1:8799", "api.anthropic.com:443", "gw.example.com:443"],
  );
});
