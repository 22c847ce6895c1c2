import assert from "node:assert/strict";
import { z } from "zod";
import {
  EVENTS_SCHEMA_PATH,
  eventsSchemaText,
} from "../../_tools/events_schema.ts";
import { createBufferedIo } from "../../cli/io/io.ts";
import { runDemo } from "../../demo/run.ts";
import { tempDir } from "../cli/_helpers.ts";

const ROOT = new URL("../../", import.meta.url);

async function checkedIn(): Promise<string> {
  return await Deno.readTextFile(new URL(EVENTS_SCHEMA_PATH, ROOT));
}

Deno.test("schema/events.v1.schema.json is what `deno task schema:events` generates", async () => {
  assert.equal(
    await checkedIn(),
    eventsSchemaText(),
    "run `deno task schema:events` and commit the result",
  );
});

Deno.test("real --json events (the demo's stream, the README's sample) validate against events.v1.schema.json", async () => {
  const schema = z.fromJSONSchema(JSON.parse(await checkedIn()));
  await using dir = await tempDir();
  const out = createBufferedIo();
  const r = await runDemo({
    home: `${dir.path}/home`,
    stdout: out.io.stdout,
    stderr: out.io.stderr,
    json: true,
  });
  assert.equal(r.chat, 0, out.stderrText());
  const demo = out.stdoutText().split("\n").filter((l) =>
    l.startsWith('{"type":"')
  )
    .map((l) => JSON.parse(l) as { type: string });
  const readme = await Deno.readTextFile(new URL("README.md", ROOT));
  const block =
    /This is the stream of `deno task demo --json`[^\n]*\n\n```jsonl\n([\s\S]*?)```/
      .exec(readme)?.[1] ?? "";
  const sample = block.trim().split("\n").map((l) => JSON.parse(l));
  const events = [...demo, ...sample];
  const types = new Set(events.map((e) => (e as { type: string }).type));
  for (
    const t of [
      "session:started",
      "session:turn_started",
      "agent:token",
      "agent:tool_call",
      "agent:tool_result",
      "cost:updated",
      "session:turn_completed",
      "session:cancelled",
    ]
  ) assert.ok(types.has(t), t);
  assert.ok(sample.length >= 10, "the README sample was found");
  for (const e of events) {
    const v = schema.safeParse(e);
    assert.ok(v.success, `${JSON.stringify(e)}\n${v.error?.message}`);
  }
  // Strict: a stray field or an unknown type does not validate.
  const first = events[0] as Record<string, unknown>;
  assert.equal(schema.safeParse({ ...first, extra: 1 }).success, false);
  assert.equal(schema.safeParse({ ...first, type: "nope" }).success, false);
});
