import assert from "node:assert/strict";
import { parseWorkflow } from "../../export/parse.ts";
import type { ValidationIssue } from "../../schema/issues.ts";

const HEAD = 'schema_version: "1.0"\nworkflow:\n  id: demo\n';
const INPUT = "    - { id: input, type: input }\n";
const OUTPUT = "    - { id: output, type: output }\n";
const EDGES = "  edges:\n    - { from: input, to: output }\n";

/** A document with the given extra node lines between input and output. */
function withNodes(nodes: string, edges = EDGES): string {
  return `${HEAD}  nodes:\n${INPUT}${nodes}${OUTPUT}${edges}`;
}

interface Good {
  name: string;
  text: string;
}

const good: Good[] = [
  { name: "minimal", text: withNodes("") },
  {
    name: "agent node with every allowed key",
    text: withNodes(
      "    - id: turn-1\n      type: agent\n      agent_ref: mini\n" +
        "      prompt_template: 'Hi { {name}} and {single}'\n" +
        "      tools: [read_file, mcp_github_search]\n      model: gpt-4o\n" +
        "      temperature: 0.2\n      max_tokens: 100\n" +
        "      system_prompt_append: Be brief.\n" +
        "      output_schema: { type: object }\n      timeout_ms: 1000\n" +
        "      retry: { max: 2, backoff: linear }\n",
    ),
  },
  {
    name: "name, description, free-form metadata, loose agents",
    text: `${HEAD}  name: Demo\n  description: A demo\n` +
      "  metadata: { anything: [1, { deep: true }], when: 2026-01-01 }\n" +
      "  agents:\n    - { id: mini, model: m, colour: blue, fallback_chain: 7 }\n" +
      `  nodes:\n${INPUT}${OUTPUT}${EDGES}`,
  },
  {
    name: "flow style, comments and a document start marker",
    text: "--- # comment\n" +
      '{ schema_version: "1.0", workflow: { id: a-1, nodes: [{ id: x, type: input }], edges: [] } }\n',
  },
];

Deno.test("parseWorkflow() accepts the workflow subset", async (t) => {
  for (const c of good) {
    await t.step(c.name, () => {
      const r = parseWorkflow(c.text, "w.yaml");
      assert.equal(r.ok, true, JSON.stringify(r));
    });
  }
});

Deno.test("parseWorkflow() keeps timestamps and look-alikes as strings", () => {
  const r = parseWorkflow(
    withNodes("").replace(
      "  id: demo\n",
      "  id: demo\n  name: 2026-12-02T11:27:59.560Z\n  metadata: { a: 2026-01-01, b: yes, c: '1.0' }\n",
    ),
    "w.yaml",
  );
  assert.ok(r.ok);
  assert.equal(r.value.workflow.name, "2026-12-02T11:27:59.560Z");
  assert.deepEqual(r.value.workflow.metadata, {
    a: "2026-01-01",
    b: "yes",
    c: "1.0",
  });
});

interface Bad {
  name: string;
  text: string;
  issues: ValidationIssue[];
}

const KEBAB_MSG = "must be a kebab-case id";
const SECRET_MSG = "must not reference {{ secrets.* }}";

const bad: Bad[] = [
  {
    name: "schema_version as a number",
    text: withNodes("").replace('"1.0"', "1.0"),
    issues: [{ path: "schema_version", message: 'must be the string "1.0"' }],
  },
  {
    name: "schema_version as another string",
    text: withNodes("").replace('"1.0"', '"2.0"'),
    issues: [{ path: "schema_version", message: 'must be the string "1.0"' }],
  },
  {
    name: "non-kebab workflow id",
    text: withNodes("").replace("id: demo", "id: Demo_1"),
    issues: [{ path: "workflow.id", message: KEBAB_MSG }],
  },
  {
    name: "unknown top-level and workflow keys",
    text: `version: 2\n${
      withNodes("").replace("  id: demo\n", "  id: demo\n  steps: []\n")
    }`,
    issues: [
      { path: "workflow.steps", message: "unknown key" },
      { path: "version", message: "unknown key" },
    ],
  },
  {
    name: "unknown node type and unknown node keys",
    text: withNodes(
      "    - { id: a, type: tool }\n    - { id: b, type: input, label: x }\n",
      "  edges: []\n",
    ),
    issues: [
      {
        path: "workflow.nodes[1].type",
        message: 'must be a node of type "input", "agent" or "output"',
      },
      { path: "workflow.nodes[2].label", message: "unknown key" },
    ],
  },
  {
    name: "agent node: bad agent_ref, bad tools, bad overrides",
    text: withNodes(
      "    - id: t\n      type: agent\n      agent_ref: Mini\n      tools: ['']\n" +
        "      temperature: 3\n      retry: { max: 2 }\n",
      "  edges: []\n",
    ),
    issues: [
      { path: "workflow.nodes[1].agent_ref", message: KEBAB_MSG },
      { path: "workflow.nodes[1].tools[0]", message: "must not be empty" },
      {
        path: "workflow.nodes[1].temperature",
        message: "Too big: expected number to be <=2",
      },
      {
        path: "workflow.nodes[1].retry.backoff",
        message: 'Invalid option: expected one of "linear"|"exponential"',
      },
    ],
  },
  {
    name: "agent node without agent_ref",
    text: withNodes("    - { id: t, type: agent }\n", "  edges: []\n"),
    issues: [{
      path: "workflow.nodes[1].agent_ref",
      message: "Invalid input: expected string, received undefined",
    }],
  },
  {
    name: "secrets references, whitespace-tolerant",
    text: withNodes(
      "    - { id: a, type: agent, agent_ref: m, prompt_template: 'x {{secrets.k}}' }\n" +
        '    - { id: b, type: agent, agent_ref: m, prompt_template: "{{  secrets .k }}" }\n' +
        '    - { id: c, type: agent, agent_ref: m, prompt_template: "{{{ secrets.k }}}" }\n' +
        '    - { id: d, type: agent, agent_ref: m, system_prompt_append: "{{\\tsecrets.k}}" }\n',
      "  edges: []\n",
    ),
    issues: [
      { path: "workflow.nodes[1].prompt_template", message: SECRET_MSG },
      { path: "workflow.nodes[2].prompt_template", message: SECRET_MSG },
      { path: "workflow.nodes[3].prompt_template", message: SECRET_MSG },
      { path: "workflow.nodes[4].system_prompt_append", message: SECRET_MSG },
    ],
  },
  {
    name: "duplicate and non-kebab node ids",
    text: withNodes(
      "    - { id: input, type: output }\n    - { id: Out, type: output }\n",
    ),
    issues: [
      { path: "workflow.nodes[2].id", message: KEBAB_MSG },
      {
        path: "workflow.nodes[1].id",
        message: "duplicates the id of workflow.nodes[0]",
      },
    ],
  },
  {
    name: "edges naming missing nodes, edge with unknown key",
    text: withNodes(
      "",
      "  edges:\n    - { from: input, to: nowhere }\n    - { from: ghost, to: output, label: x }\n",
    ),
    issues: [
      { path: "workflow.edges[1].label", message: "unknown key" },
      { path: "workflow.edges[0].to", message: "must name an existing node" },
      { path: "workflow.edges[1].from", message: "must name an existing node" },
    ],
  },
  {
    name: "agents entries must be mappings with a string id",
    text:
      `${HEAD}  agents: [{ model: m }, { id: 3 }, x]\n  nodes: []\n  edges: []\n`,
    issues: [
      { path: "workflow.agents[0].id", message: "must be a string" },
      { path: "workflow.agents[1].id", message: "must be a string" },
      {
        path: "workflow.agents[2]",
        message: "Invalid input: expected object, received string",
      },
    ],
  },
  {
    name: "metadata must be a mapping; nodes and edges are required",
    text: `${HEAD}  metadata: [1]\n`,
    issues: [
      {
        path: "workflow.metadata",
        message: "Invalid input: expected record, received array",
      },
      {
        path: "workflow.nodes",
        message: "Invalid input: expected array, received undefined",
      },
      {
        path: "workflow.edges",
        message: "Invalid input: expected array, received undefined",
      },
    ],
  },
  {
    name: "not a mapping",
    text: "- 1\n",
    issues: [{ path: "", message: "must be a single mapping document" }],
  },
  {
    name: "empty text",
    text: "",
    issues: [{ path: "", message: "must be a single mapping document" }],
  },
  {
    name: "YAML syntax error with its position",
    text: 'schema_version: "1.0"\nworkflow: [\n',
    issues: [{
      path: "",
      message: "deficient indentation",
    }],
  },
  {
    name: "duplicate keys",
    text: `${withNodes("")}schema_version: "1.0"\n`,
    issues: [{
      path: "",
      message: "duplicated mapping key",
    }],
  },
  {
    name: "more than one document",
    text: `${withNodes("")}---\n${withNodes("")}`,
    issues: [{
      path: "",
      message: "must be a single mapping document",
    }],
  },
  {
    name: "tags other than the core ones",
    text: withNodes("").replace("id: demo", "id: !!binary ZGVtbw=="),
    issues: [{
      path: "",
      message: "unknown scalar tag !<tag:yaml.org,2002:binary>",
    }],
  },
];

Deno.test("parseWorkflow() names the path of every problem", async (t) => {
  for (const c of bad) {
    await t.step(c.name, () => {
      const r = parseWorkflow(c.text, "bad.relavium.yaml");
      assert.equal(r.ok, false);
      if (r.ok) return;
      assert.equal(r.error.source, "bad.relavium.yaml");
      assert.deepEqual(
        r.error.issues.map(({ path, message }) => ({ path, message })),
        c.issues,
      );
    });
  }
});

Deno.test("parseWorkflow() bounds alias expansion", () => {
  const lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"];
  for (let i = 1; i < 12; i++) {
    lines.push(`a${i}: &a${i} [${Array(10).fill(`*a${i - 1}`).join(", ")}]`);
  }
  const r = parseWorkflow(
    `${withNodes("")}  metadata:\n${lines.map((l) => `    ${l}`).join("\n")}\n`,
    "bomb.yaml",
  );
  assert.equal(r.ok, false);
  if (!r.ok) {
    assert.deepEqual(r.error.issues, [{
      path: "",
      line: 21,
      message: "too many YAML aliases (at most 100)",
    }]);
  }
});

Deno.test("parseWorkflow() keeps own __proto__ keys as plain data", () => {
  const r = parseWorkflow(
    withNodes("").replace(
      "  id: demo\n",
      "  id: demo\n  metadata:\n    __proto__:\n      polluted: true\n" +
        "  agents:\n    - id: a\n      __proto__: { x: 1 }\n",
    ),
    "proto.yaml",
  );
  assert.ok(r.ok);
  const metadata = r.value.workflow.metadata ?? {};
  assert.deepEqual(Object.keys(metadata), ["__proto__"]);
  assert.equal(Object.getPrototypeOf(metadata), Object.prototype);
  assert.equal((metadata as { polluted?: unknown }).polluted, undefined);
  assert.deepEqual(Object.keys(r.value.workflow.agents?.[0] ?? {}), [
    "id",
    "__proto__",
  ]);
});

Deno.test("parseWorkflow() errors name source:line like agent errors", () => {
  const cases: Array<[string, string]> = [
    [
      withNodes("").replace('"1.0"', "1.0"),
      'bad.relavium.yaml:1: schema_version: must be the string "1.0"',
    ],
    [
      withNodes(
        "    - id: t\n      type: agent\n      agent_ref: Mini\n      tools: ['']\n",
        "  edges: []\n",
      ),
      "bad.relavium.yaml:8: workflow.nodes[1].agent_ref: must be a kebab-case id\n" +
      "bad.relavium.yaml:9: workflow.nodes[1].tools[0]: must not be empty",
    ],
    [
      `${HEAD}  metadata: [1]\n  nodes: []\n  edges: []\n`,
      "bad.relavium.yaml:4: workflow.metadata: Invalid input: expected record, received array",
    ],
    [
      `${withNodes("")}schema_version: "1.0"\n`,
      "bad.relavium.yaml:9: duplicated mapping key",
    ],
    [
      'schema_version: "1.0"\nworkflow: [\n',
      "bad.relavium.yaml:3: deficient indentation",
    ],
    [
      "a: &x [1, *x]\n",
      "bad.relavium.yaml:1: alias *x refers to a node that contains it",
    ],
  ];
  for (const [text, want] of cases) {
    const r = parseWorkflow(text, "bad.relavium.yaml");
    assert.equal(r.ok, false);
    if (!r.ok) assert.equal(r.error.message, want);
  }
});
