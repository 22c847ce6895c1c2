/**
 * What the server needs from its host program to open and read sessions.
 * The CLI supplies it with its one session opener, so the server never
 * assembles a session itself.
 *
 * @module
 */
import type { PersistedSession } from "../host/host.ts";
import type { SessionEvent } from "../schema/event.ts";
import type { Result } from "../schema/result.ts";
import type { ModeController } from "../tools/modes.ts";
import type { ApprovalDecision, ApprovalRequest } from "../tools/registry.ts";
import type { CreateSessionBody } from "./wire.ts";

/** A refusal with its HTTP status and the `--json` error code. */
export interface ServeFault {
  /** The HTTP status. */
  status: number;
  /** The machine-readable code. */
  code: string;
  /** One secret-free message. */
  message: string;
}

/** What the server hands the opener for one session. */
export interface OpenHooks {
  /** Takes every event of the session, in order. */
  sink(event: SessionEvent): void;
  /** Answers governed actions (the clients' approvals). */
  approver(request: ApprovalRequest): Promise<ApprovalDecision>;
}

/** A live session as the opener hands it over. */
export interface OpenedSession {
  /** The session joined to its store. */
  live: PersistedSession;
  /** Its mode and policy. */
  modes: ModeController;
  /** Resolves when its events have all reached the sink. */
  drained: Promise<void>;
  /** Ends what the run started (MCP servers, a recording). */
  finish(): Promise<void>;
}

/** The host program's side of the server. */
export interface ServeBackend {
  /** The stored sessions (`chat-list --json` records). */
  list(): Promise<Result<unknown[], ServeFault>>;
  /** One stored session (`chat-show --json`), or `undefined` when none. */
  show(sessionId: string): Promise<Result<unknown | undefined, ServeFault>>;
  /** Opens a new session. */
  create(
    body: CreateSessionBody,
    hooks: OpenHooks,
  ): Promise<Result<OpenedSession, ServeFault>>;
  /**
   * Resumes a stored session in a mode (`ask` for one this server did not
   * start); 423 while another process holds it.
   */
  resume(
    sessionId: string,
    hooks: OpenHooks,
    mode: CreateSessionBody["mode"],
  ): Promise<Result<OpenedSession, ServeFault>>;
  /**
   * Who holds the session's writer lease, named for a person, while the
   * lease is live (held and not stale); `undefined` when it is free or
   * stale.
   */
  holder(sessionId: string): Promise<string | undefined>;
  /** A stored session's workflow YAML. */
  exportYaml(sessionId: string): Promise<Result<string, ServeFault>>;
  /** Soft-deletes a stored session. */
  remove(sessionId: string): Promise<Result<true, ServeFault>>;
}
