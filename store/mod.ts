/**
 * Durable sessions: the `SessionStore` interface, the SQLite (`history.db`)
 * and memory stores: the seam for writing a store.
 * @module
 */
export type {
  AgentSessionRecord,
  AsyncSessionStore,
  BoundaryMarker,
  CostEntry,
  LoadedSession,
  ModelCostTotals,
  NewSession,
  SessionLease,
  SessionStatus,
  SessionStore,
  ToolRound,
  TurnCommit,
} from "./store.ts";
export {
  SessionMessageBoundaryError,
  SessionNotFoundError,
  SessionRecordError,
  StoreOpenError,
} from "./errors.ts";
export { openSqliteStore, type SqliteStoreOptions } from "./sqlite_store.ts";
export { createMemoryStore, type MemoryStore } from "./memory_store.ts";
// The schema types the store's API refers to, so this entry point documents
// them too (type-only: no zod type is re-exported).
export type {
  Agent,
  AgentMemory,
  AgentRetry,
  FallbackEntry,
  FsScopeTier,
  McpServer,
  MediaHandle,
  ReasoningEffort,
  ResumeState,
  SessionContentPart,
  SessionContext,
  SessionMediaPart,
  SessionMessage,
  SessionReasoningPart,
  SessionRole,
  SessionTextPart,
  SessionToolCallPart,
  SessionToolMedia,
  SessionToolResultPart,
  ToolResultOutcome,
  TurnSpan,
  WorkingMessage,
} from "../schema/mod.ts";
