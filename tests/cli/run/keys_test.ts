import assert from "node:assert/strict";
import type { ResolvedProvider } from "../../../cli/config/resolve.ts";
import { readKey, registryOf } from "../../../cli/run/keys.ts";

const builtIn = (id: string): ResolvedProvider => ({
  id,
  kind: id === "anthropic" ? "anthropic" : "openai-compatible",
  builtIn: true,
  allowLocal: false,
  source: "built-in",
});
const PROVIDERS: ResolvedProvider[] = [
  builtIn("anthropic"),
  builtIn("openai"),
  builtIn("deepseek"),
  builtIn("gemini"),
  {
    id: "ollama-box",
    kind: "openai-compatible",
    builtIn: false,
    baseUrl: "http://localhost:11434/v1",
    allowLocal: true,
    source: "project",
  },
  {
    id: "corp",
    kind: "openai-compatible",
    builtIn: false,
    baseUrl: "https://llm.corp.example/v1",
    apiKeyEnv: "CORP_LLM_TOKEN",
    allowLocal: false,
    source: "global",
  },
];

Deno.test("registryOf().keyVariables() lists RELAVIUM_<P>_API_KEY, then the vendor variable", () => {
  assert.deepEqual(registryOf(PROVIDERS).keyVariables("anthropic"), [
    "RELAVIUM_ANTHROPIC_API_KEY",
    "ANTHROPIC_API_KEY",
  ]);
  assert.deepEqual(registryOf(PROVIDERS).keyVariables("openai"), [
    "RELAVIUM_OPENAI_API_KEY",
    "OPENAI_API_KEY",
  ]);
  assert.deepEqual(registryOf(PROVIDERS).keyVariables("deepseek"), [
    "RELAVIUM_DEEPSEEK_API_KEY",
    "DEEPSEEK_API_KEY",
  ]);
  assert.deepEqual(registryOf(PROVIDERS).keyVariables("gemini"), [
    "RELAVIUM_GEMINI_API_KEY",
    "GEMINI_API_KEY",
  ]);
  assert.deepEqual(registryOf(PROVIDERS).keyVariables("ollama-box"), [
    "RELAVIUM_OLLAMA_BOX_API_KEY",
  ]);
  assert.deepEqual(registryOf(PROVIDERS).keyVariables("corp"), [
    "CORP_LLM_TOKEN",
  ]);
});

Deno.test("registryOf().lookupKey() reports the variable, never the value", () => {
  const env: Record<string, string> = {
    RELAVIUM_ANTHROPIC_API_KEY: "sk-ant-secret",
    ANTHROPIC_API_KEY: "other",
    OPENAI_API_KEY: "sk-openai",
  };
  const get = (n: string): string | undefined => env[n];
  const a = registryOf(PROVIDERS).lookupKey("anthropic", { get });
  assert.deepEqual(a, {
    status: "found",
    variable: "RELAVIUM_ANTHROPIC_API_KEY",
  });
  assert.ok(!JSON.stringify(a).includes("secret"));
  assert.deepEqual(registryOf(PROVIDERS).lookupKey("openai", { get }), {
    status: "found",
    variable: "OPENAI_API_KEY",
  });
  assert.deepEqual(
    registryOf(PROVIDERS).lookupKey("ollama-box", { get }),
    { status: "no-auth", tried: ["RELAVIUM_OLLAMA_BOX_API_KEY"] },
  );
  assert.deepEqual(registryOf(PROVIDERS).lookupKey("corp", { get }), {
    status: "missing",
    tried: ["CORP_LLM_TOKEN"],
  });
});

Deno.test("readKey() returns the value for keyFor, or a provider_auth fault naming the variables", () => {
  const env = (n: string): string | undefined =>
    n === "DEEPSEEK_API_KEY" ? "ds" : undefined;
  assert.deepEqual(
    readKey("deepseek", { registry: registryOf(PROVIDERS), env }),
    {
      ok: true,
      value: "ds",
    },
  );
  assert.deepEqual(
    readKey("ollama-box", { registry: registryOf(PROVIDERS), env }),
    {
      ok: true,
      value: "",
    },
  );
  assert.deepEqual(
    readKey("openai", { registry: registryOf(PROVIDERS), env }),
    {
      ok: false,
      error: {
        code: "provider_auth",
        message:
          "No API key for provider openai: set RELAVIUM_OPENAI_API_KEY or OPENAI_API_KEY",
      },
    },
  );
});
