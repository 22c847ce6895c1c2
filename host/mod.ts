/**
 * The persisted host: the one place that joins a session to a store.
 * @module
 */
export {
  type HostOptions,
  type HostSessionDeps,
  openSession,
  type OpenSessionOptions,
  type PersistedSession,
  type ResumeError,
  resumeSession,
  type ResumeSessionOptions,
} from "./host.ts";
export {
  createTurnWriter,
  type TurnWriter,
  type TurnWriterOptions,
} from "./turn_writer.ts";
