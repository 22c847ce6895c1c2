/**
 * An MCP tool's input schema reaches each provider as a built-in's does:
 * `$schema` dropped by the MCP layer, then the adapter's own subset
 * (Gemini's OpenAPI `Schema`: types upper-cased, `additionalProperties`
 * dropped), on the wire of a loopback server.
 */
import assert from "node:assert/strict";
import { createGeminiProvider } from "../../../llm/gemini/provider.ts";
import type { LlmRequest } from "../../../llm/mod.ts";
import { ask, collect, serve, sse } from "../../llm/adapters/_server.ts";
import { chunk, MODEL, USAGE, wire } from "../../llm/adapters/_gemini_wire.ts";
import { withStdioTools } from "./_harness.ts";

Deno.test("an MCP tool's schema goes to Gemini in the subset built-in tools get", async () => {
  await withStdioTools({}, async (tools) => {
    const defs = tools.advertise([], undefined);
    const add = defs.find((d) => d.name === "mcp_calc_add");
    assert.ok(add !== undefined);
    // What the server listed, as the model-facing schema: no $schema.
    assert.equal(add.parameters["$schema"], undefined);
    assert.equal(add.parameters["type"], "object");
    const server = serve([
      sse(
        wire([
          chunk([{ text: "ok" }], {
            finishReason: "STOP",
            usage: USAGE,
          }),
        ]),
      ),
    ]);
    try {
      const req: LlmRequest = { ...ask(MODEL), tools: [add] };
      await collect(
        createGeminiProvider({
          fetch,
          baseUrl: `${server.url}/v1beta`,
          customEndpoint: false,
        }).stream(req, "AIzaSyPLANTED-gemini-key-0123456789abcd"),
      );
      const body = JSON.parse(server.requests[0]?.body ?? "{}");
      const declared = body.tools[0].functionDeclarations[0];
      assert.equal(declared.name, "mcp_calc_add");
      assert.deepEqual(declared.parameters, {
        type: "OBJECT",
        properties: { a: { type: "NUMBER" }, b: { type: "NUMBER" } },
        required: ["a", "b"],
      });
    } finally {
      await server.close();
    }
  });
});
