/**
 * A provider that sends no token counts, through `agent run` against a
 * loopback OpenAI-compatible server: the attempt is marked
 * `usageUnknown` (its tokens unknown, its cost the cap's estimate), the
 * person is told on stderr, and `/cost`'s store line says the cost is
 * estimated.
 */
import assert from "node:assert/strict";
import { runCli, tempDir, write } from "../_helpers.ts";
import { compatToml, loopbackFetch, serve } from "../_fake_providers.ts";

const KEY = "sk-planted-usage-unknown-5e1d0c";

/** A Chat Completions stream with text and a finish, and no usage chunk. */
function withoutUsage(): Response {
  const chunk = (delta: unknown, finish: string | null) =>
    `data: ${
      JSON.stringify({
        id: "c1",
        object: "chat.completion.chunk",
        model: "m",
        choices: [{ index: 0, delta, finish_reason: finish }],
      })
    }\n\n`;
  return new Response(
    chunk({ role: "assistant", content: "Hi there." }, null) +
      chunk({}, "stop") + "data: [DONE]\n\n",
    { headers: { "content-type": "text/event-stream" } },
  );
}

Deno.test("a stream without usage is marked unknown, charged its estimate and noticed", async () => {
  await using dir = await tempDir();
  const server = serve([withoutUsage, withoutUsage]);
  try {
    await write(
      `${dir.path}/.relavium/project.toml`,
      compatToml(
        server.url,
        "\n[providers.prices.local-model]\ninput = 100000000\noutput = 400000000\n",
      ),
    );
    await write(
      `${dir.path}/a.agent.yaml`,
      "id: a\nname: A\nmodel: local-model\nprovider: compat\nsystem_prompt: Be terse.\nmax_tokens: 1000\n",
    );
    const env = {
      RELAVIUM_HOME: `${dir.path}/home`,
      RELAVIUM_COMPAT_API_KEY: KEY,
      NO_COLOR: "1",
    };
    const plain = await runCli(["agent", "run", "a.agent.yaml"], {
      env,
      cwd: dir.path,
      stdin: "hello\n",
      fetch: loopbackFetch().fetch,
    });
    assert.equal(plain.code, 0, plain.stderr);
    assert.equal(plain.stdout, "Hi there.\n");
    assert.match(
      plain.stderr,
      /\[usage unknown: local-model sent no token counts; the cost cap counts its estimate, \$0\.\d{4}\]/,
    );
    const json = await runCli(["agent", "run", "a.agent.yaml", "--json"], {
      env,
      cwd: dir.path,
      stdin: "hello\n",
      fetch: loopbackFetch().fetch,
    });
    assert.equal(json.code, 0, json.stderr);
    const cost = json.stdout.split("\n").filter((l) => l !== "").map((l) =>
      JSON.parse(l)
    ).find((e) => e.type === "cost:updated");
    assert.equal(cost?.usageUnknown, true);
    assert.equal(cost?.inputTokens, 0);
    // 1,000 reserved output tokens at $4/Mtok, plus the input estimate.
    assert.ok(cost?.costMicrocents >= 400_000, String(cost?.costMicrocents));
  } finally {
    await server.close();
  }
});
