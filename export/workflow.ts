/**
 * Session → workflow mapping.
 *
 * @module
 */
import type { Agent } from "../schema/agent.ts";
import type { SessionMessage } from "../schema/message.ts";
import {
  messageText,
  type ProjectedTurn,
  projectStructure,
} from "../store/projection.ts";
import type { AgentSessionRecord } from "../store/store.ts";
import type {
  RelaviumExportMetadata,
  Workflow,
  WorkflowAgent,
  WorkflowAgentNode,
  WorkflowDocument,
  WorkflowEdge,
  WorkflowNode,
} from "./document.ts";
import { workflowIdFromTitle } from "./slug.ts";

const UNKNOWN_TOOL = "unknown_tool";

/**
 * Builds the workflow scaffold of a stored session.
 *
 * Rows are sorted by `sequenceNumber` and run through the structural
 * projection **ignoring compaction boundaries**, so turns
 * superseded by a compact or trim are exported too. Nodes are `input`,
 * one `agent` node `turn-1` … `turn-n` per completed turn, then `output`,
 * chained by edges (`input → output` when no turn completed). Each agent
 * node has `agent_ref: record.agentSlug`; `prompt_template` = the non-empty
 * texts of the turn's legacy user prefix and its user row joined with
 * `\n\n`, neutralised (`{{` → `{ {`, `{{{` → `{ { {`), omitted when empty;
 * `tools` = the distinct `tool_call` names of the turn in first-seen order
 * without `unknown_tool`, omitted when empty. `agents` is
 * `[record.agentSnapshot]` verbatim (never repaired); `name` is the title;
 * `id` comes from {@linkcode workflowIdFromTitle}; `metadata` holds only
 * `relaviumExport` with every row, sorted, as stored.
 *
 * Pure and deterministic: no clock, no randomness, inputs untouched; the
 * document shares no objects with them.
 *
 * @param record The session row (its context is not used).
 * @param messages All stored rows of the session, in any order.
 * @returns The whole document, with YAML key names.
 * @throws {TypeError} When the title yields no id and `record.id` is empty.
 *
 * @example Two turns, one with a tool call
 * ```ts
 * import { sessionToWorkflow } from "@relavium/session/export";
 * import type { AgentSessionRecord } from "@relavium/session/store";
 * import type { SessionMessage } from "@relavium/session/schema";
 * import assert from "node:assert/strict";
 * const at = "2026-01-01T00:00:00.000Z";
 * const record: AgentSessionRecord = {
 *   id: "s1", agentSlug: "mini", title: "Say hi", status: "active",
 *   context: { workingDir: "/w", fsScopeTier: "sandboxed" },
 *   totalInputTokens: 0, totalOutputTokens: 0, totalCostMicrocents: 0, totalConservativeMicrocents: 0,
 *   createdAt: at, updatedAt: at,
 * };
 * const row = (n: number, role: SessionMessage["role"], content: SessionMessage["content"]): SessionMessage =>
 *   ({ id: `m${n}`, sessionId: "s1", sequenceNumber: n, role, content, timestamp: at });
 * const doc = sessionToWorkflow(record, [
 *   row(0, "user", [{ type: "text", text: "Say hi {{name}}" }]),
 *   row(1, "assistant", [{ type: "text", text: "hi" }]),
 *   row(2, "user", [{ type: "text", text: "Read a.txt" }]),
 *   row(3, "assistant", [{ type: "tool_call", id: "session-tool:1:0", name: "read_file", argsBytes: 9 }]),
 *   row(4, "tool", [{ type: "tool_result", toolCallId: "session-tool:1:0", resultBytes: 5, outcome: "ok" }]),
 *   row(5, "assistant", [{ type: "text", text: "done" }]),
 * ]);
 * assert.equal(doc.workflow.id, "say-hi");
 * assert.deepEqual(doc.workflow.nodes.map((n) => n.id), ["input", "turn-1", "turn-2", "output"]);
 * assert.deepEqual(doc.workflow.nodes[1], {
 *   id: "turn-1", type: "agent", agent_ref: "mini", prompt_template: "Say hi { {name}}",
 * });
 * assert.deepEqual(doc.workflow.nodes[2], {
 *   id: "turn-2", type: "agent", agent_ref: "mini", prompt_template: "Read a.txt", tools: ["read_file"],
 * });
 * ```
 */
export function sessionToWorkflow(
  record: Omit<AgentSessionRecord, "context">,
  messages: ReadonlyArray<SessionMessage>,
): WorkflowDocument {
  const sorted = [...messages].sort((a, b) =>
    a.sequenceNumber - b.sequenceNumber
  );
  const { turns } = projectStructure(sorted, { honourBoundary: false });

  const nodes: WorkflowNode[] = [{ id: "input", type: "input" }];
  turns.forEach((turn, i) => {
    nodes.push(agentNode(`turn-${i + 1}`, record.agentSlug, turn));
  });
  nodes.push({ id: "output", type: "output" });
  const edges: WorkflowEdge[] = [];
  for (let i = 1; i < nodes.length; i++) {
    const from = nodes[i - 1];
    const to = nodes[i];
    if (from !== undefined && to !== undefined) {
      edges.push({ from: from.id, to: to.id });
    }
  }

  const exportMeta: RelaviumExportMetadata = {
    source: "session",
    sessionId: record.id,
    agentSlug: record.agentSlug,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    messages: sorted.map(copyMessage),
  };
  if (record.title !== undefined) exportMeta.title = record.title;

  const workflow: Workflow = {
    id: workflowIdFromTitle(record.title, record.id),
    metadata: { relaviumExport: exportMeta },
    nodes,
    edges,
  };
  if (record.title !== undefined) workflow.name = record.title;
  if (record.agentSnapshot !== undefined) {
    workflow.agents = [snapshotAgent(record.agentSnapshot)];
  }
  return { schema_version: "1.0", workflow };
}

function agentNode(
  id: string,
  agentRef: string,
  turn: ProjectedTurn,
): WorkflowAgentNode {
  const node: WorkflowAgentNode = { id, type: "agent", agent_ref: agentRef };
  const prompt = [...turn.legacyPrefix, turn.user]
    .map(messageText)
    .filter((text) => text !== "")
    .join("\n\n");
  if (prompt !== "") node.prompt_template = neutraliseTemplate(prompt);
  const tools = new Set<string>();
  for (const row of turn.rows) {
    for (const part of row.content) {
      if (part.type === "tool_call" && part.name !== UNKNOWN_TOOL) {
        tools.add(part.name);
      }
    }
  }
  if (tools.size > 0) node.tools = [...tools];
  return node;
}

/**
 * Inserts one space after every `{` immediately followed by `{`, so the
 * text holds no `{{` and no template reference survives (not redaction).
 */
function neutraliseTemplate(text: string): string {
  return text.replace(/\{(?=\{)/g, "{ ");
}

/** A deep copy of JSON-like data (faster than `structuredClone`). */
function cloneJson<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map(cloneJson) as T;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === "__proto__") {
      // An own `__proto__` key (JSON.parse makes them) stays a key.
      Object.defineProperty(out, k, {
        value: cloneJson(v),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else {
      out[k] = cloneJson(v);
    }
  }
  return out as T;
}

/** The frozen agent exactly as stored, as an independent copy. */
function snapshotAgent(agent: Agent): WorkflowAgent {
  const copy: WorkflowAgent = { ...cloneJson(agent) };
  return copy;
}

/** A row with exactly its stored fields, sharing nothing with the input. */
function copyMessage(m: SessionMessage): SessionMessage {
  const out: SessionMessage = {
    id: m.id,
    sessionId: m.sessionId,
    sequenceNumber: m.sequenceNumber,
    role: m.role,
    content: cloneJson(m.content),
    timestamp: m.timestamp,
  };
  if (m.modelId !== undefined) out.modelId = m.modelId;
  if (m.compaction !== undefined) {
    out.compaction = {
      droppedThroughSequence: m.compaction.droppedThroughSequence,
    };
  }
  return out;
}
