/**
 * The workflow document export writes and re-parses: the minimal
 * `.relavium.yaml` subset, with YAML key names.
 *
 * @module
 */
import type { AgentRetry } from "../schema/agent.ts";
import type { ValidationIssue } from "../schema/issues.ts";
import type { SessionMessage } from "../schema/message.ts";

/**
 * An inline agent of a workflow. The parser only requires a mapping with a
 * string `id`; an exported session's frozen agent appears
 * here verbatim, even when current agent validation would reject it.
 */
export interface WorkflowAgent {
  /** The agent id nodes refer to with `agent_ref`. */
  id: string;
  /** Any other authored key, kept exactly as written. */
  [key: string]: unknown;
}

/**
 * The workflow's entry node.
 */
export interface WorkflowInputNode {
  /** Kebab-case node id, unique in the workflow. */
  id: string;
  /** Node kind. */
  type: "input";
}

/**
 * The workflow's exit node.
 */
export interface WorkflowOutputNode {
  /** Kebab-case node id, unique in the workflow. */
  id: string;
  /** Node kind. */
  type: "output";
}

/**
 * A node that runs an agent. Export emits only `id`, `type`, `agent_ref`,
 * `prompt_template` and `tools`; the other keys are accepted on re-parse
 * because the full workflow schema allows them.
 */
export interface WorkflowAgentNode {
  /** Kebab-case node id, unique in the workflow. */
  id: string;
  /** Node kind. */
  type: "agent";
  /** Kebab-case id of the agent the node runs. */
  agent_ref: string;
  /** The node's prompt; a `{{ secrets.* }}` reference is refused. */
  prompt_template?: string;
  /** Tool ids the node uses (MCP ids such as `mcp_<server>_<tool>` included). */
  tools?: string[];
  /** Model override (never emitted by export). */
  model?: string;
  /** Sampling temperature in [0, 2] (never emitted by export). */
  temperature?: number;
  /** Output token cap, a positive integer (never emitted by export). */
  max_tokens?: number;
  /** Text appended to the agent's system prompt (never emitted by export). */
  system_prompt_append?: string;
  /** JSON schema of the node's output (never emitted by export). */
  output_schema?: Record<string, unknown>;
  /** Node timeout in milliseconds, a positive integer (never emitted by export). */
  timeout_ms?: number;
  /** Node re-dispatch policy (never emitted by export). */
  retry?: AgentRetry;
}

/**
 * One workflow node, discriminated on `type`.
 */
export type WorkflowNode =
  | WorkflowInputNode
  | WorkflowAgentNode
  | WorkflowOutputNode;

/**
 * A directed edge between two existing nodes.
 */
export interface WorkflowEdge {
  /** Id of the source node. */
  from: string;
  /** Id of the target node. */
  to: string;
}

/**
 * The `workflow` mapping.
 */
export interface Workflow {
  /** Kebab-case workflow id. */
  id: string;
  /** Display name. */
  name?: string;
  /** Free-text description. */
  description?: string;
  /** Free-form map, preserved across parse → serialize. */
  metadata?: Record<string, unknown>;
  /** Inline agents. */
  agents?: WorkflowAgent[];
  /** The nodes, in order. */
  nodes: WorkflowNode[];
  /** The edges, in order. */
  edges: WorkflowEdge[];
}

/**
 * A whole `.relavium.yaml` document.
 */
export interface WorkflowDocument {
  /** Always the string `"1.0"`. */
  schema_version: "1.0";
  /** The workflow. */
  workflow: Workflow;
}

/**
 * What `sessionToWorkflow` stores under `workflow.metadata.relaviumExport`.
 */
export interface RelaviumExportMetadata {
  /** Where the workflow came from. */
  source: "session";
  /** The exported session's id. */
  sessionId: string;
  /** The session's agent slug. */
  agentSlug: string;
  /** The session title, when it has one. */
  title?: string;
  /** Session creation time, ISO-8601. */
  createdAt: string;
  /** Session last write time, ISO-8601. */
  updatedAt: string;
  /** Every stored row, in sequence order, exactly as stored. */
  messages: SessionMessage[];
}

/**
 * Why a workflow document could not be parsed: the source and every
 * issue, each naming its key path (e.g. `workflow.nodes[2].agent_ref`).
 */
export interface WorkflowParseError {
  /** File path or other origin of the text. */
  source: string;
  /** One entry per problem; `path` is `""` for the document root. */
  issues: ValidationIssue[];
  /** The issues, one `source:line: path: message` line each. */
  message: string;
}
