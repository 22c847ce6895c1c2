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
/** An openai-compatible `[[providers]]` entry. */
function custom(
  id: string,
  baseUrl: string,
  source: "project" | "global",
  extra: { allowLocal?: boolean; apiKeyEnv?: string },
): ResolvedProvider {
  return {
    id,
    kind: "openai-compatible",
    builtIn: false,
    baseUrl,
    ...(extra.apiKeyEnv === undefined ? {} : { apiKeyEnv: extra.apiKeyEnv }),
    allowLocal: extra.allowLocal ?? false,
    source,
  };
}

const PROVIDERS: ResolvedProvider[] = [
  builtIn("anthropic"),
  builtIn("openai"),
  builtIn("deepseek"),
  builtIn("gemini"),
  custom("ollama-box", "http://localhost:11434/v1", "project", {
    allowLocal: true,
  }),
  custom("corp", "https://llm.corp.example/v1", "global", {
    apiKeyEnv: "CORP_LLM_TOKEN",
  }),
];

Deno.test("registryOf().keyVariables() lists RELAVIUM_<P>_API_KEY, then the vendor variable", () => {
  const expected: Array<[string, string[]]> = [
    ["anthropic", ["RELAVIUM_ANTHROPIC_API_KEY", "ANTHROPIC_API_KEY"]],
    ["openai", ["RELAVIUM_OPENAI_API_KEY", "OPENAI_API_KEY"]],
    ["deepseek", ["RELAVIUM_DEEPSEEK_API_KEY", "DEEPSEEK_API_KEY"]],
    ["gemini", ["RELAVIUM_GEMINI_API_KEY", "GEMINI_API_KEY"]],
    ["ollama-box", ["RELAVIUM_OLLAMA_BOX_API_KEY"]],
    ["corp", ["CORP_LLM_TOKEN"]],
  ];
  for (const [id, variables] of expected) {
    assert.deepEqual(registryOf(PROVIDERS).keyVariables(id), variables, id);
  }
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
