import assert from "node:assert/strict";
import type { WorkflowAgentNode } from "../../export/document.ts";
import { parseWorkflow } from "../../export/parse.ts";
import { sessionToWorkflow } from "../../export/workflow.ts";
import { stringifyWorkflow } from "../../export/yaml.ts";
import type { Agent } from "../../schema/agent.ts";
import type { SessionMessage } from "../../schema/message.ts";
import {
  calls,
  marker,
  MINI,
  record,
  reply,
  results,
  row,
  user,
} from "./_sessions.ts";

/** The agent nodes' interesting fields, in order. */
type Turn = Pick<WorkflowAgentNode, "prompt_template" | "tools">;

interface Case {
  name: string;
  messages: SessionMessage[];
  turns: Turn[];
}

const cases: Case[] = [
  {
    name: "no rows ⇒ input → output",
    messages: [],
    turns: [],
  },
  {
    name: "no completed turn (unanswered user) ⇒ input → output",
    messages: [user(0, "hello?")],
    turns: [],
  },
  {
    name: "plain turns",
    messages: [user(0, "a"), reply(1, "A"), user(2, "b"), reply(3, "B")],
    turns: [{ prompt_template: "a" }, { prompt_template: "b" }],
  },
  {
    name: "an empty final text still completes a turn",
    messages: [user(0, "a"), reply(1, ""), user(2, "b"), reply(3, "")],
    turns: [{ prompt_template: "a" }, { prompt_template: "b" }],
  },
  {
    name: "tool preamble and tool rows create no node",
    messages: [
      user(0, "look"),
      calls(1, 1, [[0, "read_file"]], "Let me look first."),
      results(2, 1, [0]),
      reply(3, "done"),
    ],
    turns: [{ prompt_template: "look", tools: ["read_file"] }],
  },
  {
    name: "two calls in one round, repeats across rounds, first-seen order",
    messages: [
      user(0, "both"),
      calls(1, 1, [[0, "list_directory"], [1, "read_file"]]),
      results(2, 1, [0, 1]),
      calls(3, 1, [[2, "read_file"], [3, "git_status"]]),
      results(4, 1, [2, 3]),
      reply(5, "ok"),
    ],
    turns: [{
      prompt_template: "both",
      tools: ["list_directory", "read_file", "git_status"],
    }],
  },
  {
    name: "unknown_tool is left out; MCP ids are kept",
    messages: [
      user(0, "x"),
      calls(1, 1, [[0, "unknown_tool"], [1, "mcp_github_search"]]),
      results(2, 1, [0, 1]),
      reply(3, "ok"),
      user(4, "y"),
      calls(5, 2, [[0, "unknown_tool"]]),
      results(6, 2, [0]),
      reply(7, "ok"),
    ],
    turns: [
      { prompt_template: "x", tools: ["mcp_github_search"] },
      { prompt_template: "y" },
    ],
  },
  {
    name: "an interrupted exchange creates no node and is not a prefix",
    messages: [
      user(0, "interrupted"),
      calls(1, 1, [[0, "read_file"]]),
      results(2, 1, [0]),
      user(3, "again"),
      reply(4, "ok"),
    ],
    turns: [{ prompt_template: "again" }],
  },
  {
    name: "legacy bare users prefix the next turn; empty ones are not legacy",
    messages: [
      user(0, "first"),
      user(1, ""),
      user(2, "second"),
      user(3, "now"),
      reply(4, "ok"),
      user(5, "trailing legacy"),
      user(6, "unanswered"),
    ],
    turns: [{ prompt_template: "first\n\nsecond\n\nnow" }],
  },
  {
    name: "compaction and trim markers: the whole history is exported",
    messages: [
      user(0, "a"),
      reply(1, "A"),
      user(2, "b"),
      reply(3, "B"),
      marker(4, 1, "summary of a"),
      user(5, "c"),
      reply(6, "C"),
      marker(7, 3),
      user(8, "d"),
      reply(9, "D"),
    ],
    turns: [
      { prompt_template: "a" },
      { prompt_template: "b" },
      { prompt_template: "c" },
      { prompt_template: "d" },
    ],
  },
  {
    name: "template braces are neutralised, secrets references included",
    messages: [
      user(0, "{{old}}"),
      user(1, "a {{b}} {{{c}}} {{secrets.key}} {{ secrets.x }} { {ok} {"),
      reply(2, "ok"),
    ],
    turns: [{
      prompt_template:
        "{ {old}}\n\na { {b}} { { {c}}} { {secrets.key}} { { secrets.x }} { {ok} {",
    }],
  },
  {
    name: "an empty or text-less user turn has no prompt_template",
    messages: [
      user(0, ""),
      reply(1, "A"),
      row(2, "user", [{
        type: "media",
        mimeType: "image/png",
        source: { kind: "handle", ref: "media://sha256-" + "a".repeat(64) },
      }]),
      reply(3, "B"),
    ],
    turns: [{}, {}],
  },
  {
    name: "several text parts of a user row are joined with a blank line",
    messages: [
      row(0, "user", [{ type: "text", text: "one" }, {
        type: "text",
        text: "two",
      }]),
      reply(1, "ok"),
    ],
    turns: [{ prompt_template: "one\n\ntwo" }],
  },
];

Deno.test("sessionToWorkflow() maps turns to nodes", async (t) => {
  for (const c of cases) {
    await t.step(c.name, () => {
      const doc = sessionToWorkflow(
        record({ agentSlug: "toolbox" }),
        [
          ...c.messages,
        ].reverse(),
      );
      const ids = [
        "input",
        ...c.turns.map((_, i) => `turn-${i + 1}`),
        "output",
      ];
      assert.deepEqual(doc.workflow.nodes, [
        { id: "input", type: "input" },
        ...c.turns.map((turn, i) => ({
          id: `turn-${i + 1}`,
          type: "agent",
          agent_ref: "toolbox",
          ...turn,
        })),
        { id: "output", type: "output" },
      ]);
      assert.deepEqual(
        doc.workflow.edges,
        ids.slice(1).map((to, i) => ({ from: ids[i], to })),
      );
      const meta = doc.workflow.metadata?.relaviumExport as {
        messages: SessionMessage[];
      };
      assert.deepEqual(
        meta.messages,
        [...c.messages].sort((a, b) => a.sequenceNumber - b.sequenceNumber),
      );
      const text = stringifyWorkflow(doc);
      const back = parseWorkflow(text, "case.relavium.yaml");
      assert.ok(back.ok, JSON.stringify(!back.ok && back.error));
      assert.equal(stringifyWorkflow(back.value), text);
    });
  }
});

Deno.test("sessionToWorkflow() writes the whole document", () => {
  const messages = [reply(1, "hi"), user(0, "Say hi")];
  const doc = sessionToWorkflow(
    record({ title: "Say hi", agentSnapshot: MINI }),
    messages,
  );
  assert.deepEqual(doc, {
    schema_version: "1.0",
    workflow: {
      id: "say-hi",
      name: "Say hi",
      agents: [MINI],
      metadata: {
        relaviumExport: {
          source: "session",
          sessionId: "0b5c1c2e-3a4f-4d6e-8f90-1a2b3c4d5e6f",
          agentSlug: "mini",
          title: "Say hi",
          createdAt: "2026-03-04T05:00:00.000Z",
          updatedAt: "2026-03-04T05:10:00.000Z",
          messages: [user(0, "Say hi"), reply(1, "hi")],
        },
      },
      nodes: [
        { id: "input", type: "input" },
        {
          id: "turn-1",
          type: "agent",
          agent_ref: "mini",
          prompt_template: "Say hi",
        },
        { id: "output", type: "output" },
      ],
      edges: [{ from: "input", to: "turn-1" }, {
        from: "turn-1",
        to: "output",
      }],
    },
  });
});

Deno.test("sessionToWorkflow() omits what the session lacks", () => {
  const doc = sessionToWorkflow(record(), []);
  assert.equal("name" in doc.workflow, false);
  assert.equal("agents" in doc.workflow, false);
  assert.equal("description" in doc.workflow, false);
  assert.equal(
    doc.workflow.id,
    "exported-session-0b5c1c2e-3a4f-4d6e-8f90-1a2b3c4d5e6f",
  );
  assert.deepEqual(Object.keys(doc.workflow.metadata ?? {}), [
    "relaviumExport",
  ]);
  assert.equal(
    "title" in (doc.workflow.metadata?.relaviumExport as object),
    false,
  );
});

Deno.test("sessionToWorkflow() embeds the snapshot verbatim, never repaired", () => {
  const invalid: Agent = {
    ...MINI,
    fallback_chain: [
      { model: "gpt-5.4-mini", provider: "openai", max_attempts: 2 },
      { model: "gpt-5.4-mini", provider: "openai", max_attempts: 2 },
    ],
    tools: ["read_file", "read_file", "no_such_tool"],
  };
  const doc = sessionToWorkflow(record({ agentSnapshot: invalid }), []);
  assert.deepEqual(doc.workflow.agents, [invalid]);
  assert.notEqual(doc.workflow.agents?.[0], invalid);
});

Deno.test("sessionToWorkflow() keeps every stored row field as stored", () => {
  const rows: SessionMessage[] = [
    user(0, "a"),
    row(1, "assistant", [
      { type: "reasoning", text: "hmm", redacted: false },
      { type: "text", text: "A" },
    ]),
    { ...marker(2, 1, "s"), modelId: "summariser" },
  ];
  const doc = sessionToWorkflow(record(), rows);
  const meta = doc.workflow.metadata?.relaviumExport as {
    messages: SessionMessage[];
  };
  assert.deepEqual(meta.messages, rows);
  assert.notEqual(meta.messages[1]?.content, rows[1]?.content);
});

Deno.test("sessionToWorkflow() never emits node overrides", () => {
  const doc = sessionToWorkflow(record({ agentSnapshot: MINI }), [
    user(0, "a"),
    calls(1, 1, [[0, "read_file"]]),
    results(2, 1, [0]),
    reply(3, "A"),
  ]);
  const allowed = new Set([
    "id",
    "type",
    "agent_ref",
    "prompt_template",
    "tools",
  ]);
  for (const node of doc.workflow.nodes) {
    for (const key of Object.keys(node)) assert.ok(allowed.has(key), key);
  }
});

Deno.test("sessionToWorkflow() is pure: frozen inputs, same output twice", () => {
  const rows = [reply(3, "B"), user(2, "b"), reply(1, "A"), user(0, "a")];
  const rec = record({ title: "t", agentSnapshot: MINI });
  deepFreeze(rows);
  deepFreeze(rec);
  const before = JSON.stringify(rows);
  const a = sessionToWorkflow(rec, rows);
  const b = sessionToWorkflow(rec, rows);
  assert.deepEqual(a, b);
  assert.equal(JSON.stringify(rows), before);
});

function deepFreeze(value: unknown): void {
  if (typeof value !== "object" || value === null) return;
  Object.freeze(value);
  for (const v of Object.values(value)) deepFreeze(v);
}

Deno.test("sessionToWorkflow() keeps an own __proto__ key of the snapshot", () => {
  const snapshot = JSON.parse(
    '{"id":"mini","model":"m","provider":"openai","system_prompt":"s",' +
      '"input_schema":{"__proto__":{"x":1}}}',
  ) as Agent;
  const doc = sessionToWorkflow(record({ agentSnapshot: snapshot }), []);
  const schema = doc.workflow.agents?.[0]?.input_schema as object;
  assert.deepEqual(Object.keys(schema), ["__proto__"]);
  assert.equal(Object.getPrototypeOf(schema), Object.prototype);
  assert.equal(JSON.stringify(doc.workflow.agents), JSON.stringify([snapshot]));
});
