/**
 * The CLI against a loopback OpenAI platform declared as a Chat
 * Completions endpoint of its own (`[[providers]] kind =
 * "openai-compatible"`, `reasoning = true`): for a GPT-5.x model with
 * tools it sends `reasoning_effort: "none"`, the only effort the platform
 * takes beside tools there, and says once on stderr that the agent's
 * effort is not carried, instead of dropping it silently.
 */
import assert from "node:assert/strict";
import { parseEvents, runCli, tempDir, write } from "../_helpers.ts";
import { loopbackFetch } from "../_fake_providers.ts";
import { servePlatform } from "../../llm/adapters/_openai_platform.ts";

const KEY = "sk-proj-PLANTEDnotice0123456789abcdefXYZ";

Deno.test("agent run: an effort a Chat Completions endpoint cannot carry beside tools is said once on stderr", async () => {
  await using dir = await tempDir();
  const server = servePlatform();
  try {
    await write(
      `${dir.path}/.relavium/project.toml`,
      [
        "[[providers]]",
        'id = "proxy"',
        'kind = "openai-compatible"',
        `base_url = "${server.url}/v1"`,
        "allow_local = true",
        "reasoning = true",
        "",
      ].join("\n"),
    );
    await write(
      `${dir.path}/a.agent.yaml`,
      [
        "id: a",
        "model: gpt-5.4",
        "provider: proxy",
        "system_prompt: Be terse.",
        "reasoning_effort: high",
        "tools:",
        "  - read_file",
        "",
      ].join("\n"),
    );
    const r = await runCli(["agent", "run", "a.agent.yaml", "--json"], {
      env: {
        RELAVIUM_HOME: `${dir.path}/home`,
        RELAVIUM_PROXY_API_KEY: KEY,
        NO_COLOR: "1",
      },
      cwd: dir.path,
      stdin: "Hi\n",
      fetch: loopbackFetch().fetch,
    });
    assert.equal(r.code, 0, r.stderr);
    const notice =
      'proxy: gpt-5.4 takes function tools on Chat Completions only with reasoning effort "none", which is sent instead of "high" (declare the endpoint with kind = "openai-responses" to carry the effort)';
    assert.equal(r.stderr.split(notice).length - 1, 1, r.stderr);
    assert.deepEqual(server.requests.map((q) => q.path), [
      "/v1/chat/completions",
    ]);
    assert.equal(
      JSON.parse(server.requests[0]?.body ?? "{}").reasoning_effort,
      "none",
    );
    assert.ok(
      parseEvents(r.stdout).some((e) => e.type === "session:turn_completed"),
    );
  } finally {
    await server.close();
  }
});
