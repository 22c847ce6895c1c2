/**
 * Session → workflow export: a pure, deterministic mapping of a stored
 * session to a reviewable `.relavium.yaml` scaffold (`input → turn-1 … →
 * output`, the frozen agent inline, the whole transcript under
 * `metadata.relaviumExport`), byte-stable sorted-key YAML, the strict
 * re-parser and the workflow-id slug.
 *
 * Exported files contain the conversation's own text unredacted; review
 * them before running or committing them.
 *
 * @example Export, serialize, re-parse
 * ```ts
 * import {
 *   parseWorkflow,
 *   sessionToWorkflow,
 *   stringifyWorkflow,
 * } from "@relavium/session/export";
 * import type { AgentSessionRecord } from "@relavium/session/store";
 * import assert from "node:assert/strict";
 * const at = "2026-01-01T00:00:00.000Z";
 * const record: AgentSessionRecord = {
 *   id: "0b5c1c2e-3a4f-4d6e-8f90-1a2b3c4d5e6f", agentSlug: "mini", status: "active",
 *   context: { workingDir: "/w", fsScopeTier: "sandboxed" },
 *   totalInputTokens: 0, totalOutputTokens: 0, totalCostMicrocents: 0, totalConservativeMicrocents: 0,
 *   createdAt: at, updatedAt: at,
 * };
 * const doc = sessionToWorkflow(record, [
 *   { id: "a", sessionId: record.id, sequenceNumber: 0, role: "user", timestamp: at, content: [{ type: "text", text: "hi" }] },
 *   { id: "b", sessionId: record.id, sequenceNumber: 1, role: "assistant", timestamp: at, content: [{ type: "text", text: "hello" }] },
 * ]);
 * assert.equal(doc.workflow.id, "exported-session-0b5c1c2e-3a4f-4d6e-8f90-1a2b3c4d5e6f");
 * const text = stringifyWorkflow(doc);
 * const back = parseWorkflow(text, "session.relavium.yaml");
 * assert.equal(back.ok, true);
 * if (back.ok) assert.equal(stringifyWorkflow(back.value), text);
 * ```
 *
 * @module
 */
export type {
  RelaviumExportMetadata,
  Workflow,
  WorkflowAgent,
  WorkflowAgentNode,
  WorkflowDocument,
  WorkflowEdge,
  WorkflowInputNode,
  WorkflowNode,
  WorkflowOutputNode,
  WorkflowParseError,
} from "./document.ts";
export { parseWorkflow } from "./parse.ts";
export { workflowIdFromTitle } from "./slug.ts";
export { sessionToWorkflow } from "./workflow.ts";
export { stringifyWorkflow } from "./yaml.ts";
