// deno-lint-ignore-file no-console
/**
 * Your own endpoint: a local model server, a proxy or a compatible vendor,
 * as one provider entry. Keys come from `RELAVIUM_LOCAL_API_KEY` when set;
 * `allowLocal` lets a loopback server answer without one.
 *
 * deno run --allow-net=127.0.0.1 --allow-env examples/custom_endpoint.ts http://127.0.0.1:8080/v1
 *
 * @module
 */
import { createMemoryStore, denoRuntime, openSession } from "@relavium/session";

const baseUrl = Deno.args[0] ?? "http://127.0.0.1:8080/v1";
using live = openSession({
  store: createMemoryStore(),
  runtime: denoRuntime({
    env: Deno.env,
    providers: [
      { id: "local", kind: "openai-compatible", baseUrl, allowLocal: true },
    ],
  }),
  agent: {
    id: "local-guide",
    model: "my-model",
    provider: "local",
    system_prompt: "Answer in one sentence.",
  },
});
const result = await live.session.sendMessage("Say hello.");
console.log(`${result.kind}: ${result.text}`);
