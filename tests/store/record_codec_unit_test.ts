/** The record_codec.ts internals, case by case. */
import assert from "node:assert/strict";
import { decodeSessionRow, isoFromEpoch } from "../../store/record_codec.ts";

/** A stored session row with `context_json` and the given fields laid over. */
function row(
  contextJson: string,
  fields: Record<string, number> = {},
): Parameters<typeof decodeSessionRow>[0] {
  return {
    id: "s",
    agent_id: null,
    agent_slug: "mini",
    agent_snapshot: null,
    title: null,
    model_id: null,
    status: "ended",
    context_json: contextJson,
    total_input_tokens: 0,
    total_output_tokens: 0,
    total_cost_microcents: 0,
    total_conservative_microcents: null,
    exported_workflow_path: null,
    deleted_at: null,
    created_at: 0,
    updated_at: 0,
    ...fields,
  };
}

Deno.test("isoFromEpoch() formats epoch zero", () => {
  assert.equal(isoFromEpoch(0), "1970-01-01T00:00:00.000Z");
});

Deno.test("decodeSessionRow() decodes a stored row", () => {
  const r = decodeSessionRow(
    row('{"workingDir":"/w","fsScopeTier":"sandboxed"}', {
      total_input_tokens: 1,
      total_output_tokens: 2,
      total_cost_microcents: 3,
      updated_at: 1,
    }),
  );
  assert.equal(r.updatedAt, "1970-01-01T00:00:00.001Z");
  assert.equal(r.totalConservativeMicrocents, 0);
});

Deno.test("a stored context's own __proto__ variable is left out, as zod's record leaves it", () => {
  const record = decodeSessionRow(
    row(
      '{"workingDir":"/w","fsScopeTier":"sandboxed","variables":{"__proto__":{"x":1},"a":"b"}}',
    ),
  );
  assert.deepEqual(record.context.variables, { a: "b" });
  assert.equal(
    Object.hasOwn(record.context.variables ?? {}, "__proto__"),
    false,
  );
});
