/**
 * Validated shapes shared across the package: agents, contexts, durable
 * messages, events, resume state, typed results. Each type is checked
 * against its zod schema in the tests; the schemas themselves stay
 * internal, and the parse functions are the public way in.
 * @module
 */
export { err, ok, type Result } from "./result.ts";
export { formatPath, renderIssues, type ValidationIssue } from "./issues.ts";
export {
  type Agent,
  type AgentLoadError,
  type AgentMemory,
  type AgentRetry,
  type FallbackEntry,
  KEBAB_ID,
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
  ENGINE_TOOL_CALL_ID,
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
  TOOL_NAME,
  type ToolResultOutcome,
} from "./message.ts";
export {
  type CompactionReason,
  ERROR_CODES,
  type ErrorCode,
  type GovernedAction,
  parseSessionEvent,
  type SessionEnvelope,
  type SessionError,
  type SessionEvent,
  type SessionEventDraft,
  type SessionEventType,
  type TokensUsed,
  type ToolHistoryEntry,
  type TurnStopReason,
} from "./event.ts";
export type { ResumeState, TurnSpan, WorkingMessage } from "./resume.ts";
