/**
 * Prompt caching through the CLI against a loopback Anthropic server: on by
 * default, every request of a tool round carries `cache_control`
 * breakpoints (never more than four); `[chat] prompt_caching = false`
 * sends none; a bad value is refused naming the file and the field.
 */
import assert from "node:assert/strict";
import { tempDir, write } from "../_helpers.ts";
import {
  agentRunOnFakeAnthropic,
  anthropicReadNotes,
  fixture,
  serve,
  sse,
} from "../_fake_providers.ts";

function breakpoints(body: string): number {
  return (body.match(/"cache_control"/g) ?? []).length;
}

async function toolRound(config: string | undefined) {
  await using dir = await tempDir();
  const server = serve([
    sse(anthropicReadNotes()),
    sse(fixture("anthropic", "text.sse")),
  ]);
  try {
    await write(`${dir.path}/notes.txt`, "The secret word is kumquat.\n");
    const r = await agentRunOnFakeAnthropic(dir.path, server.url, {
      stdin: "What is the secret word in notes.txt?\n",
      tools: ["read_file"],
      ...(config === undefined ? {} : { home: config }),
    });
    return { r, bodies: server.requests.map((q) => q.body) };
  } finally {
    await server.close();
  }
}

Deno.test("prompt caching: on by default, every request of a tool round carries breakpoints on the system prompt, the tools and the latest turn", async () => {
  const { r, bodies } = await toolRound(undefined);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(bodies.length, 2);
  for (const raw of bodies) {
    const n = breakpoints(raw);
    assert.ok(n >= 1 && n <= 4, `1..4 breakpoints, got ${n}`);
    const body = JSON.parse(raw);
    const tools = body.tools as Array<Record<string, unknown>>;
    assert.ok(tools.at(-1)?.["cache_control"] !== undefined, "last tool");
    assert.ok(
      JSON.stringify(body.system).includes("cache_control"),
      "system prompt",
    );
    assert.ok(
      JSON.stringify(body.messages.at(-1)).includes("cache_control"),
      "latest turn",
    );
  }
});

Deno.test("prompt caching: [chat] prompt_caching = false sends no breakpoint", async () => {
  const { r, bodies } = await toolRound("[chat]\nprompt_caching = false\n");
  assert.equal(r.code, 0, r.stderr);
  assert.equal(bodies.length, 2);
  for (const raw of bodies) assert.equal(breakpoints(raw), 0);
});

Deno.test("prompt caching: a bad value is refused naming the file and the field", async () => {
  const { r, bodies } = await toolRound('[chat]\nprompt_caching = "forever"\n');
  assert.equal(r.code, 2, r.stderr);
  assert.match(
    r.stderr,
    /config\.toml:2: chat\.prompt_caching: must be true, false, \\"5m\\" or \\"1h\\"/,
  );
  assert.equal(bodies.length, 0);
});
