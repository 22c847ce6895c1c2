/**
 * Validated shapes shared across the package: agents, contexts, durable
 * messages, events, resume state, typed results. Each type is checked
 * against its zod schema in the tests; the schemas themselves stay
 * internal, and the parse functions are the public way in.
 * @module
 */
export type { Result } from "./result.ts";
export type { ValidationIssue } from "./issues.ts";
export {
  type Agent,
  type AgentLoadError,
  type AgentMemory,
  type AgentRetry,
  type FallbackEntry,
  type McpServer,
  parseAgent,
  type ReasoningEffort,
} from "./agent.ts";
export {
  type FsScopeTier,
  parseSessionContext,
  type SessionContext,
} from "./context.ts";
export {
  type MediaHandle,
  parseSessionMessage,
  type SessionContentPart,
  type SessionMediaPart,
  type SessionMessage,
  type SessionReasoningPart,
  type SessionRole,
  type SessionTextPart,
  type SessionToolCallPart,
  type SessionToolMedia,
  type SessionToolResultPart,
  type ToolResultOutcome,
} from "./message.ts";
export {
  type CompactionReason,
  type ErrorCode,
  type GovernedAction,
  parseSessionEvent,
  type SessionEnvelope,
  type SessionError,
  type SessionEvent,
  type SessionEventDraft,
  type TokensUsed,
  type ToolHistoryEntry,
  type TurnStopReason,
} from "./event.ts";
export type { ResumeState, TurnSpan, WorkingMessage } from "./resume.ts";
