/**
 * The engine: `AgentSession`, its states, turn core, request projection
 * and event stamping. It never touches storage, files, env or the clock
 * directly: everything comes in through {@linkcode SessionDeps}.
 * @module
 */
export {
  type BudgetAttempt,
  type BudgetGovernor,
  type BudgetNotice,
  type BudgetPolicy,
  budgetRefusalMessage,
  checkBudgetPolicy,
  createBudgetGovernor,
  type OnExceed,
  projectedSpend,
} from "./budget.ts";
export {
  COMPACTION_LIMITS,
  COMPACTION_SYSTEM_PROMPT,
  countSlots,
  cutHeadAndTail,
  type FoldSplit,
  omittedMarker,
  type PassInput,
  type PassPlan,
  planPass,
  rebaseSpans,
  splitForCompaction,
} from "./compaction.ts";
export {
  type CompactionOutcome,
  type CompactionRunInput,
  type CompactionStart,
  type ContextState,
  runCompaction,
} from "./compaction_run.ts";
export {
  afterTurn,
  afterTurnDue,
  applyTrim,
  compactWith,
  measureNext,
  measureState,
  preSend,
  type PreSendOutcome,
  type WindowEnv,
} from "./window_ops.ts";
export type { Clock, EgressAttempt, IdSource, SessionDeps } from "./deps.ts";
export {
  attemptableEntries,
  authoritativeWindow,
  checkCompactThreshold,
  compactionTrigger,
  DEFAULT_COMPACT_THRESHOLD,
  DEFAULT_OUTPUT_RESERVATION,
  type Measurement,
  outputReservation,
  type ReservationInput,
  reservationOf,
  summariserBound,
} from "./measure.ts";
export {
  automaticCompactionFor,
  compactionRefusalFor,
  type CompactionResult,
  type MemoryPolicyRefusal,
  NO_STREAMING,
  toCompactionResult,
  trimRefusalFor,
  type TrimResult,
} from "./memory_policy.ts";
export { planTrim, type TrimPlan } from "./trim.ts";
export { runTurnFlow, terminalDraft, type TurnFlowHost } from "./turn_flow.ts";
export { SessionStateError, type SessionStateErrorCode } from "./errors.ts";
export { createEventStamper, type EventStamperOptions } from "./events.ts";
export {
  estimateProjection,
  projectHistory,
  type ProjectionInput,
  renderSummaryBlock,
  SUMMARY_CLOSING_SENTENCE,
} from "./projection.ts";
export { resolveSystemPrompt } from "./prompt.ts";
export { isValidResumeState } from "./resume_state.ts";
export {
  AgentSession,
  type AgentSessionParams,
  type CompletedExchange,
  DEFAULT_MAX_TURNS,
  type SessionState,
} from "./session.ts";
export type { Transcript } from "./session_types.ts";
export type { UserCommandOutcome } from "../tools/registry.ts";
export {
  EFFECT_IDENTITY_REFUSED,
  runUserCommandFlow,
  type UserCommandInput,
} from "./user_command.ts";
export {
  type ContentChunk,
  type IssuedCall,
  parseArgsJson,
  ResponseCollector,
} from "./tool_calls.ts";
export {
  runTurnCore,
  TURN_LIMITS,
  type TurnCoreInput,
  type TurnCoreResult,
} from "./turn.ts";
export { sessionError, sessionErrorFromLlm } from "./turn_errors.ts";
