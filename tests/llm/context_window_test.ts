import assert from "node:assert/strict";
import { createOpenAiProvider } from "../../llm/openai/provider.ts";
import { createAnthropicProvider } from "../../llm/anthropic/provider.ts";
import { authoritativeWindow } from "../../session/window/measure.ts";
import { runCli, tempDir, write } from "../cli/_helpers.ts";

const offline = () => Promise.reject(new Error("offline test"));

Deno.test("a custom endpoint's window is authoritative only when it declares one (context_window)", () => {
  const declared = createOpenAiProvider({
    id: "local",
    fetch: offline,
    baseUrl: "https://llm.example/v1",
    contextWindow: 32_768,
  });
  assert.equal(declared.customEndpoint, true);
  assert.equal(authoritativeWindow(declared, "any-model"), 32_768);
  const silent = createOpenAiProvider({
    id: "local",
    fetch: offline,
    baseUrl: "https://llm.example/v1",
  });
  assert.equal(authoritativeWindow(silent, "gpt-5.4-mini"), undefined);
  const anthropic = createAnthropicProvider({
    id: "proxy",
    fetch: offline,
    baseUrl: "https://proxy.example",
    contextWindow: 200_000,
  });
  assert.equal(authoritativeWindow(anthropic, "claude-sonnet-4-6"), 200_000);
});

Deno.test("[[providers]] context_window must be a positive integer, named in the error", async () => {
  await using dir = await tempDir();
  await write(
    `${dir.path}/home/config.toml`,
    '[[providers]]\nid = "local"\nkind = "openai-compatible"\nbase_url = "https://llm.example/v1"\ncontext_window = 0\n',
  );
  const r = await runCli(["config", "show"], {
    env: { RELAVIUM_HOME: `${dir.path}/home` },
    cwd: dir.path,
  });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /providers\[0\]\.context_window/);
});
