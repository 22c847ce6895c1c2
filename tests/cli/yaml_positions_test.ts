import assert from "node:assert/strict";
import { yamlPositions } from "../../cli/run/yaml_positions.ts";

Deno.test("yamlPositions() maps key paths to lines in block and flow styles", () => {
  const text = [
    "id: helper", // 1
    "fallback_chain:", // 2
    "  - model: gpt-4o", // 3
    "    provider: openai", // 4
    "    max_attempts: 20", // 5
    "memory: { type: window, window_size: 0 }", // 6
    "tools: [read_file, nope]", // 7
    "system_prompt: |", // 8
    "  multi", // 9
    "  line", // 10
    "? [complex, key]", // 11
    ": value", // 12
    "after: 1", // 13
  ].join("\n") + "\n";
  const { lines, aliases } = yamlPositions(text);
  assert.equal(lines.get("id"), 1);
  assert.equal(lines.get("fallback_chain"), 2);
  assert.equal(lines.get("fallback_chain[0]"), 3);
  assert.equal(lines.get("fallback_chain[0].max_attempts"), 5);
  assert.equal(lines.get("memory.window_size"), 6);
  assert.equal(lines.get("tools[1]"), 7);
  assert.equal(lines.get("system_prompt"), 8);
  assert.equal(lines.get("after"), 13);
  assert.equal(aliases, 0);
});

Deno.test("yamlPositions() counts aliases", () => {
  const { aliases } = yamlPositions("a: &x [1, 2]\nb: *x\nc: [*x, *x]\n");
  assert.equal(aliases, 3);
});
