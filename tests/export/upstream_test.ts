import assert from "node:assert/strict";
import { parse } from "yaml";
import { parseWorkflow } from "../../export/parse.ts";
import { sessionToWorkflow } from "../../export/workflow.ts";
import { stringifyWorkflow } from "../../export/yaml.ts";
import { readUpstreamSessions, UPSTREAM_DIR } from "./_upstream.ts";

/** Our only intended byte difference: ISO timestamps are double-quoted. */
function unquoteTimestamps(text: string): string {
  return text.replace(
    /"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)"/g,
    "$1",
  );
}

Deno.test("sessionToWorkflow() matches the Relavium CLI's own exports", async (t) => {
  const sessions = await readUpstreamSessions();
  assert.deepEqual(
    sessions.map((s) => s.record.id),
    [
      "2fcee55c-bbd1-4ccf-9a3a-a6a92ec37694",
      "39271b8b-ff7a-4fd7-a98d-12b38fc40374",
    ],
  );
  for (const { record, messages } of sessions) {
    await t.step(record.id, async () => {
      const theirs = await Deno.readTextFile(
        `${UPSTREAM_DIR}/exports/${record.id}.relavium.yaml`,
      );
      const ours = stringifyWorkflow(sessionToWorkflow(record, messages));

      // Same data under the YAML 1.2 core schema.
      assert.deepEqual(
        parse(ours, { schema: "core" }),
        parse(theirs, { schema: "core" }),
      );
      // Ours re-parses and is byte-stable.
      const again = parseWorkflow(ours, `${record.id}.relavium.yaml`);
      assert.ok(again.ok, JSON.stringify(!again.ok && again.error));
      assert.equal(stringifyWorkflow(again.value), ours);
      // The upstream file passes our strict parser, and re-serializes to ours.
      const parsed = parseWorkflow(theirs, `${record.id}.relavium.yaml`);
      assert.ok(parsed.ok, JSON.stringify(!parsed.ok && parsed.error));
      assert.equal(stringifyWorkflow(parsed.value), ours);
      // Bytes: identical once our quoted timestamps are unquoted.
      assert.notEqual(ours, theirs);
      assert.equal(unquoteTimestamps(ours), theirs);
    });
  }
});
