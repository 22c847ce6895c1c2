import assert from "node:assert/strict";
import { z } from "zod";
import { defineTool } from "../../tools/tool.ts";

Deno.test("defineTool: the zod schema is the whole argument contract (parse, messages, model-facing JSON Schema)", () => {
  const shout = defineTool(
    z.strictObject({ text: z.string().min(1).describe("What to shout") }),
    {
      id: "shout",
      description: "Upper-case a text",
      policy: {
        fsScoped: false,
        spawnsProcess: false,
        requiresGateApproval: false,
      },
      dispatch: (args) =>
        Promise.resolve({ ok: true, value: args.text.toUpperCase() }),
    },
  );
  assert.deepEqual(shout.parse({ text: "hi" }), {
    ok: true,
    value: { text: "hi" },
  });
  assert.deepEqual(shout.parse({ text: "" }), {
    ok: false,
    error: [{
      path: "text",
      message: "Too small: expected string to have >=1 characters",
    }],
  });
  assert.deepEqual(shout.llmParams, {
    type: "object",
    properties: {
      text: { type: "string", minLength: 1, description: "What to shout" },
    },
    required: ["text"],
    additionalProperties: false,
  });
  assert.equal(shout.llmParams, shout.llmParams, "built once");
  assert.throws(
    () => defineTool({} as never, { ...shout, id: "bad" }),
    TypeError,
  );
});
