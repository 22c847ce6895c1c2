/**
 * `[[providers]]` knobs of a custom OpenAI-compatible endpoint, through
 * `agent run` against a loopback server: `dialect = "deepseek"` speaks
 * DeepSeek's thinking switch, `reasoning = true` lets the agent's effort
 * through (a custom endpoint drops it by default), and bad values are
 * refused naming the file and the field.
 */
import assert from "node:assert/strict";
import { runCli, tempDir, write } from "../_helpers.ts";
import {
  compatToml,
  fixture,
  loopbackFetch,
  serve,
  sse,
} from "../_fake_providers.ts";

async function run(knobs: string, kind = "openai-compatible") {
  await using dir = await tempDir();
  const server = serve([sse(fixture("openai", "text.sse"))]);
  try {
    await write(
      `${dir.path}/.relavium/project.toml`,
      compatToml(server.url, knobs, kind),
    );
    await write(
      `${dir.path}/a.agent.yaml`,
      "id: a\nname: A\nmodel: local-model\nprovider: compat\nsystem_prompt: Be terse.\nreasoning_effort: high\n",
    );
    const r = await runCli(["agent", "run", "a.agent.yaml"], {
      env: {
        RELAVIUM_HOME: `${dir.path}/home`,
        RELAVIUM_COMPAT_API_KEY: "sk-planted-knobs-0a1b2c3d4e5f",
        NO_COLOR: "1",
      },
      cwd: dir.path,
      stdin: "hello\n",
      fetch: loopbackFetch().fetch,
    });
    const bodies = server.requests.map((q) => JSON.parse(q.body));
    return { r, body: bodies[0] };
  } finally {
    await server.close();
  }
}

Deno.test("a custom endpoint drops the agent's effort unless reasoning = true", async () => {
  const plain = await run("");
  assert.equal(plain.r.code, 0, plain.r.stderr);
  assert.equal(plain.body.reasoning_effort, undefined);
  assert.equal(plain.body.thinking, undefined);
  const reasoning = await run("reasoning = true\n");
  assert.equal(reasoning.r.code, 0, reasoning.r.stderr);
  assert.equal(reasoning.body.reasoning_effort, "high");
  assert.equal(reasoning.body.thinking, undefined);
});

Deno.test('dialect = "deepseek" sends DeepSeek\'s thinking switch, not reasoning_effort', async () => {
  const { r, body } = await run('dialect = "deepseek"\nreasoning = true\n');
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(body.thinking, { type: "enabled" });
  assert.equal(body.reasoning_effort, undefined);
});

Deno.test("bad knobs are refused naming the file and the field", async () => {
  const a = await run('dialect = "anthropic"\n');
  assert.equal(a.r.code, 2);
  assert.match(
    a.r.stderr,
    /project\.toml:\d+: providers\[0\]\.dialect: must be openai or deepseek/,
  );
  assert.equal(a.body, undefined, "nothing was sent");
  const b = await run('dialect = "deepseek"\n', "anthropic");
  assert.equal(b.r.code, 2);
  assert.match(
    b.r.stderr,
    /providers\[0\]\.dialect: applies only to kind = \\?"openai-compatible\\?"/,
  );
  const c = await run('reasoning = "yes"\n');
  assert.equal(c.r.code, 2);
  assert.match(c.r.stderr, /providers\[0\]\.reasoning: /);
});
