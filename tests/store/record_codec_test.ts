import assert from "node:assert/strict";
import { decodeSessionRow } from "../../store/record_codec.ts";

Deno.test("a stored context's own __proto__ variable is left out, as zod's record leaves it", () => {
  const record = decodeSessionRow({
    id: "s",
    agent_id: null,
    agent_slug: "mini",
    agent_snapshot: null,
    title: null,
    model_id: null,
    status: "ended",
    context_json:
      '{"workingDir":"/w","fsScopeTier":"sandboxed","variables":{"__proto__":{"x":1},"a":"b"}}',
    total_input_tokens: 0,
    total_output_tokens: 0,
    total_cost_microcents: 0,
    total_conservative_microcents: null,
    exported_workflow_path: null,
    deleted_at: null,
    created_at: 0,
    updated_at: 0,
  });
  assert.deepEqual(record.context.variables, { a: "b" });
  assert.equal(
    Object.hasOwn(record.context.variables ?? {}, "__proto__"),
    false,
  );
});
