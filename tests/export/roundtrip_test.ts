import assert from "node:assert/strict";
import { parse } from "yaml";
import { parseWorkflow } from "../../export/parse.ts";
import { sessionToWorkflow } from "../../export/workflow.ts";
import { stringifyWorkflow } from "../../export/yaml.ts";
import { CORPUS } from "./_sessions.ts";

Deno.test("export round-trips byte-stably for every corpus session", async (t) => {
  for (const s of CORPUS) {
    await t.step(s.name, () => {
      const doc = sessionToWorkflow(s.record, s.messages);
      const text = stringifyWorkflow(doc);

      const again = stringifyWorkflow(sessionToWorkflow(s.record, s.messages));
      assert.equal(again, text, "exporting twice gives identical bytes");

      const parsed = parseWorkflow(text, `${s.record.id}.relavium.yaml`);
      assert.ok(parsed.ok, JSON.stringify(!parsed.ok && parsed.error));
      assert.deepEqual(parsed.value, doc, "the parser returns the same data");
      assert.equal(stringifyWorkflow(parsed.value), text, "byte-stable");

      assert.deepEqual(parse(text, { schema: "core" }), doc);
      assert.deepEqual(parse(text, { version: "1.1" }), doc);
      assert.ok(text.endsWith("\n"));
    });
  }
});
