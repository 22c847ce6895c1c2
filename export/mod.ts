/**
 * Session → workflow export: a pure, deterministic mapping of a stored
 * session to a reviewable `.relavium.yaml` scaffold (`input → turn-1 … →
 * output`, the frozen agent inline, the whole transcript under
 * `metadata.relaviumExport`), byte-stable sorted-key YAML, the strict
 * re-parser and the workflow-id slug.
 *
 * Exported files contain the conversation's own text unredacted; review
 * them before running or committing them.
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
export { sessionToWorkflow } from "./workflow.ts";
export { stringifyWorkflow } from "./yaml.ts";

// The types the signatures above refer to, so this entry point documents
// them too.
export type {
  Agent,
  AgentMemory,
  AgentRetry,
  FallbackEntry,
  McpServer,
  ReasoningEffort,
} from "../schema/agent.ts";
export type { FsScopeTier, SessionContext } from "../schema/context.ts";
export type { ValidationIssue } from "../schema/issues.ts";
export type {
  MediaHandle,
  SessionContentPart,
  SessionMediaPart,
  SessionMessage,
  SessionReasoningPart,
  SessionRole,
  SessionTextPart,
  SessionToolCallPart,
  SessionToolMedia,
  SessionToolResultPart,
  ToolResultOutcome,
} from "../schema/message.ts";
export type { Result } from "../schema/result.ts";
export type { AgentSessionRecord, SessionStatus } from "../store/store.ts";
