import assert from "node:assert/strict";
import { parse } from "yaml";
import { lineOfPath, MAX_ALIASES, readYaml } from "../../schema/_yaml.ts";
import { parseAgentYaml } from "../../schema/agent_file.ts";

Deno.test("readYaml() maps key paths to lines in block and flow styles", () => {
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
    "after: 1", // 11
  ].join("\n") + "\n";
  const r = readYaml(text);
  assert.ok(r.ok);
  const { lines } = r.value;
  assert.equal(lines.get("id"), 1);
  assert.equal(lines.get("fallback_chain"), 2);
  assert.equal(lines.get("fallback_chain[0]"), 3);
  assert.equal(lines.get("fallback_chain[0].max_attempts"), 5);
  assert.equal(lines.get("memory.window_size"), 6);
  assert.equal(lines.get("tools[1]"), 7);
  assert.equal(lines.get("system_prompt"), 8);
  assert.equal(lines.get("after"), 11);
  assert.equal(lineOfPath(lines, "fallback_chain[0].model_x"), 3);
  assert.equal(lineOfPath(lines, "missing"), undefined);
});

Deno.test("readYaml() decodes like the yaml package with the core schema", () => {
  const docs = [
    "a: 1\nb: [x, 'y', \"z\"]\nc: { d: null, e: ~, f: true, g: 0x1f }\n",
    "when: 2026-01-01\nyes_no: yes\nv: '1.0'\nf: 1.5e3\nn: -.inf\n",
    "text: |\n  two\n  lines\nfolded: >\n  one\n  line\n",
    "a: &x { k: [1, 2] }\nb: *x\n",
    "- 1\n- [2, 3]\n",
  ];
  for (const text of docs) {
    const r = readYaml(text);
    assert.ok(r.ok, text);
    assert.deepEqual(r.value.value, parse(text, { schema: "core" }), text);
  }
});

Deno.test("readYaml() refuses what is not one plain document", async (t) => {
  const cases: Array<[string, string, number | undefined, string]> = [
    ["empty", "", undefined, "must be a single mapping document"],
    [
      "two documents",
      "a: 1\n---\nb: 2\n",
      undefined,
      "must be a single mapping document",
    ],
    ["duplicate key", "id: a\nid: b\n", 2, "duplicated mapping key"],
    ["a non-core tag", "id: !!binary ZGVtbw==\n", 1, "unknown scalar tag"],
    ["a custom tag", "a: 1\nid: !foo x\n", 2, "unknown scalar tag"],
    [
      "a complex key",
      "a: 1\n? [complex, key]\n: value\n",
      1,
      "object-based map does not support complex keys",
    ],
    ["syntax", 'a: "1.0"\nb: [\n', 3, "deficient indentation"],
    [
      "a sequence in itself",
      "a: &x [1, *x]\n",
      1,
      "alias *x refers to a node that contains it",
    ],
    [
      "a mapping in itself",
      "a:\n  &x\n  b:\n    c: *x\n",
      4,
      "alias *x refers to a node that contains it",
    ],
  ];
  for (const [name, text, line, message] of cases) {
    await t.step(name, () => {
      const r = readYaml(text);
      assert.equal(r.ok, false);
      if (r.ok) return;
      assert.equal(r.error.line, line);
      assert.ok(r.error.message.startsWith(message), r.error.message);
    });
  }
});

Deno.test("readYaml() allows MAX_ALIASES aliases and refuses one more", () => {
  const doc = (n: number) =>
    `a: &x [1]\nb: [${Array(n).fill("*x").join(", ")}]\n`;
  assert.ok(readYaml(doc(MAX_ALIASES)).ok);
  const r = readYaml(doc(MAX_ALIASES + 1));
  assert.equal(r.ok, false);
  if (!r.ok) {
    assert.deepEqual(r.error, {
      path: "",
      line: 2,
      message: `too many YAML aliases (at most ${MAX_ALIASES})`,
    });
  }
});

Deno.test("readYaml() keeps an own __proto__ key as data", () => {
  const r = readYaml("__proto__: { polluted: true }\n");
  assert.ok(r.ok);
  const value = r.value.value as Record<string, unknown>;
  assert.deepEqual(Object.keys(value), ["__proto__"]);
  assert.equal(Object.getPrototypeOf(value), Object.prototype);
  assert.equal((value as { polluted?: unknown }).polluted, undefined);
});

const AGENT = "id: a\nmodel: m\nprovider: openai\nsystem_prompt: s\n";

Deno.test("parseAgentYaml() names the file, the line and the key path", async (t) => {
  const cases: Array<[string, string, string]> = [
    [
      "no system_prompt",
      "id: a\nmodel: m\nprovider: openai\n",
      "a.agent.yaml: system_prompt: Invalid input: expected string, received undefined",
    ],
    [
      "a misspelt key",
      `${AGENT}colour: red\n`,
      "a.agent.yaml:5: colour: unknown key",
    ],
    [
      "a nested value",
      `${AGENT}memory:\n  type: window\n  window_size: 0\n`,
      "a.agent.yaml:7: memory.window_size:",
    ],
    [
      "an unknown tool",
      `${AGENT}tools: [read_file, rm_rf]\n`,
      'a.agent.yaml:5: tools[1]: unknown tool "rm_rf"',
    ],
    [
      "a YAML error",
      `${AGENT}id: b\n`,
      "a.agent.yaml:5: duplicated mapping key",
    ],
    ["a list", "- 1\n", "a.agent.yaml: must be a single mapping document"],
  ];
  for (const [name, text, want] of cases) {
    await t.step(name, () => {
      const r = parseAgentYaml(text, {
        file: "a.agent.yaml",
        knownTools: ["read_file"],
      });
      assert.equal(r.ok, false);
      if (r.ok) return;
      assert.equal(r.error.file, "a.agent.yaml");
      assert.ok(r.error.message.startsWith(want), r.error.message);
      assert.equal(r.error.message.split("\n").length, r.error.issues.length);
    });
  }
});

Deno.test("parseAgentYaml() returns the agent as authored", () => {
  const r = parseAgentYaml(`${AGENT}tools: [read_file]\ndescription: yes\n`, {
    file: "a.agent.yaml",
  });
  assert.ok(r.ok);
  if (r.ok) {
    assert.deepEqual(r.value, {
      id: "a",
      model: "m",
      provider: "openai",
      system_prompt: "s",
      tools: ["read_file"],
      description: "yes",
    });
  }
});
