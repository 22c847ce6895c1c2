/**
 * The server's live sessions: one event log per session (from its event
 * source: this process's memory, or a table many servers share), the turn
 * that runs (one at a time), the approvals that wait for a client, the
 * heartbeat, and the release of a session left idle (its lease freed for
 * another server or a chat; the next message takes it again). On a log
 * many servers share, a session another server runs shows the turn and
 * approvals its log holds (its `TurnView`) while that server's lease is
 * live. Sessions are opened through the host program's backend; the hub
 * never assembles one.
 *
 * @module
 */
import { err, ok, type Result } from "../schema/result.ts";
import type { ApprovalDecision, ApprovalRequest } from "../tools/registry.ts";
import type {
  OpenedSession,
  OpenHooks,
  ServeBackend,
  ServeFault,
} from "./backend.ts";
import type { EventLog } from "./event_log.ts";
import { type EventSource, memoryEvents } from "./event_source.ts";
import type {
  CreateSessionBody,
  PendingApproval,
  ServerEvent,
  SessionState,
} from "./wire.ts";

/** Options of a {@linkcode SessionHub}. */
export interface HubOptions {
  /** Opens and reads sessions. */
  backend: ServeBackend;
  /** Heartbeat period of a session with clients. */
  heartbeatMs: number;
  /** An approval without an answer this long is rejected. */
  approvalTimeoutMs: number;
  /** Events kept per session for replay (when no `events` is given). */
  replayEvents?: number;
  /** Where events are logged; default this process's memory. */
  events?: EventSource;
  /**
   * A live session idle this long (no turn, no approval waiting) is
   * closed, its lease released; the next message resumes it. Absent:
   * never.
   */
  idleReleaseMs?: number;
}

interface Waiting {
  approval: PendingApproval;
  resolve(decision: ApprovalDecision, by: "client" | "timeout" | "abort"): void;
}

interface Entry {
  id: string;
  opened: OpenedSession | undefined;
  opening: Promise<Result<OpenedSession, ServeFault>> | undefined;
  running: boolean;
  waiting: Map<string, Waiting>;
  answered: Map<string, { eventId: string; after: string }>;
  /** The mode it was started in here (a resume keeps it). */
  mode: CreateSessionBody["mode"];
  heartbeat: ReturnType<typeof setInterval> | undefined;
  /** The idle release waiting to run. */
  idle: ReturnType<typeof setTimeout> | undefined;
  /** The idle release under way (a resume waits for it). */
  releasing: Promise<void> | undefined;
  /** Resolved when the running turn's last event reached the sink. */
  turnEnd: PromiseWithResolvers<void> | undefined;
  /** The running turn, settled once its `server:idle` is logged. */
  turn: Promise<void> | undefined;
  /** A cancel ending the running turn before it closes the session. */
  ending: Promise<boolean> | undefined;
  /** Messages on their way in (no idle release meanwhile). */
  sending: number;
  /**
   * On a shared log, the live lease holder of a session this server does
   * not hold, as last read (`undefined`: none, or stale).
   */
  holder: string | undefined;
  /** That read under way. */
  reading: Promise<void> | undefined;
}

/** What a session shows: whether a turn runs, the approvals waiting. */
interface Observed {
  running: boolean;
  pendingApprovals: PendingApproval[];
}

const MAX_KEYS = 100;
/** The longest wait for a finished turn's last event to reach the sink. */
const TURN_END_WAIT_MS = 30_000;

function fault(status: number, code: string, message: string): ServeFault {
  return { status, code, message };
}

/**
 * The live sessions of one server.
 */
export class SessionHub {
  readonly #o: HubOptions;
  readonly #entries = new Map<string, Entry>();
  readonly #events: EventSource;
  #closing = false;

  /**
   * Builds an empty hub.
   *
   * @param options The backend and timings.
   */
  constructor(options: HubOptions) {
    this.#o = options;
    this.#events = options.events ?? memoryEvents(options.replayEvents);
  }

  #entry(id: string): Entry {
    let e = this.#entries.get(id);
    if (e === undefined) {
      e = {
        id,
        opened: undefined,
        opening: undefined,
        heartbeat: undefined,
        idle: undefined,
        releasing: undefined,
        turnEnd: undefined,
        turn: undefined,
        ending: undefined,
        sending: 0,
        holder: undefined,
        reading: undefined,
        running: false,
        mode: "ask",
        waiting: new Map(),
        answered: new Map(),
      };
      this.#entries.set(id, e);
    }
    return e;
  }

  #serverEvent(
    e: Entry,
    event: Record<string, unknown> & { type: string },
  ): void {
    this.#events.append(e.id, {
      ...event,
      sessionId: e.id,
      timestamp: new Date().toISOString(),
    } as ServerEvent);
  }

  #hooks(e: () => Entry): OpenHooks {
    return {
      sink: (event) => this.#take(e(), event),
      approver: (request) => this.#ask(e(), request),
    };
  }

  /** An event of the session, as its sink hands it over. */
  #take(e: Entry, event: { type: string }): void {
    // An idle release is no cancel: the session stays open to its clients
    // and resumes on the next message.
    if (e.releasing !== undefined && event.type === "session:cancelled") {
      return;
    }
    this.#events.append(e.id, event);
    if (
      event.type === "session:turn_completed" ||
      event.type === "session:cancelled"
    ) e.turnEnd?.resolve();
  }

  #ask(e: Entry, request: ApprovalRequest): Promise<ApprovalDecision> {
    const requestId = crypto.randomUUID();
    const expires = Date.now() + this.#o.approvalTimeoutMs;
    const approval: PendingApproval = {
      requestId,
      toolId: request.toolId,
      action: request.action,
      preview: { ...request.preview },
      expiresAt: new Date(expires).toISOString(),
    };
    return new Promise((resolve) => {
      const timer = setTimeout(
        () => answer("reject", "timeout"),
        this.#o.approvalTimeoutMs,
      );
      const answer = (
        decision: ApprovalDecision,
        by: "client" | "timeout" | "abort",
      ): void => {
        if (!e.waiting.delete(requestId)) return;
        clearTimeout(timer);
        this.#serverEvent(e, {
          type: "server:approval_resolved",
          requestId,
          decision,
          by,
        });
        resolve(decision);
      };
      e.waiting.set(requestId, { approval, resolve: answer });
      this.#serverEvent(e, { type: "server:approval_requested", approval });
    });
  }

  /** Whether this server holds the session (opened or opening here). */
  #heldHere(e: Entry): boolean {
    return e.opened !== undefined || e.opening !== undefined || e.running;
  }

  /**
   * What a session shows. In this process's memory: the hub's own turn and
   * approvals. On a shared log: whether a turn runs is what the log says
   * (its start to its `server:idle`, so a client ends at the idle event
   * with every event before it), while a holder holds the session: this
   * server, or another whose lease is live (a dead holder's turn stops
   * running here once its lease is stale, and ends in the log with the
   * takeover's `server:idle`); the approvals waiting are this server's
   * own when it holds the session, else the log's.
   */
  #observed(e: Entry): Observed {
    const local = [...e.waiting.values()].map((w) => w.approval);
    if (!this.#events.shared) {
      return { running: e.running, pendingApprovals: local };
    }
    const view = this.#events.log(e.id).view;
    const here = this.#heldHere(e);
    if (!here && e.holder === undefined) {
      return { running: false, pendingApprovals: [] };
    }
    return {
      running: view.running,
      pendingApprovals: here ? local : view.pending,
    };
  }

  /** Reads who holds a session another server may run (shared log only). */
  #readHolder(e: Entry): Promise<void> {
    if (!this.#events.shared || this.#heldHere(e)) return Promise.resolve();
    e.reading ??= this.#o.backend.holder(e.id).then(
      (holder) => void (e.holder = holder),
      () => void (e.holder = undefined),
    ).finally(() => {
      e.reading = undefined;
    });
    return e.reading;
  }

  /**
   * Opens a new session.
   *
   * @param body The agent, model, mode and context.
   * @returns The session id and its stream's last id, or a fault.
   */
  async create(
    body: CreateSessionBody,
  ): Promise<Result<{ sessionId: string; lastEventId: string }, ServeFault>> {
    if (this.#closing) return err(fault(503, "internal", "Server is stopping"));
    const held: { entry?: Entry } = {};
    // Events can arrive before the id is known: hold them until it is.
    const early: Array<{ type: string }> = [];
    const opened = await this.#o.backend.create(body, {
      sink: (event) => {
        if (held.entry === undefined) early.push(event);
        else this.#take(held.entry, event);
      },
      approver: (request) => {
        if (held.entry === undefined) return Promise.resolve("reject");
        return this.#ask(held.entry, request);
      },
    });
    if (!opened.ok) return opened;
    const e = this.#entry(opened.value.live.sessionId);
    held.entry = e;
    e.mode = body.mode;
    for (const event of early) this.#take(e, event);
    e.opened = opened.value;
    opened.value.live.session.setTurnPolicy(opened.value.modes.policy);
    this.#idleLater(e);
    await this.#events.settle(e.id);
    return ok({ sessionId: e.id, lastEventId: this.log(e.id).lastId });
  }

  /** Schedules the idle release of a live session. */
  #idleLater(e: Entry): void {
    if (e.idle !== undefined) clearTimeout(e.idle);
    e.idle = undefined;
    const ms = this.#o.idleReleaseMs;
    // A message on its way in schedules it again once it is in.
    if (ms === undefined || this.#closing || e.sending > 0) return;
    e.idle = setTimeout(() => {
      e.idle = undefined;
      if (
        e.running || e.waiting.size > 0 || e.opened === undefined ||
        e.opening !== undefined || e.sending > 0 || this.#closing
      ) return;
      e.releasing = this.cancel(e.id).then(() => {}, () => {}).finally(() => {
        e.releasing = undefined;
      });
    }, ms);
  }

  async #live(e: Entry): Promise<Result<OpenedSession, ServeFault>> {
    if (e.releasing !== undefined) await e.releasing;
    if (e.opened !== undefined) return ok(e.opened);
    e.opening ??= this.#o.backend.resume(
      e.id,
      this.#hooks(() => e),
      e.mode,
    );
    const opened = await e.opening;
    e.opening = undefined;
    if (opened.ok) {
      e.opened = opened.value;
      opened.value.live.session.setTurnPolicy(opened.value.modes.policy);
    }
    return opened;
  }

  /**
   * Starts a turn.
   *
   * @param sessionId The session.
   * @param text The user message.
   * @param key An idempotency key: a repeated key answers as the first time.
   * @returns The turn's first event id and the cursor before it, or a
   * fault (409 while a turn runs, 423 while another process holds it).
   */
  async send(
    sessionId: string,
    text: string,
    key?: string,
  ): Promise<Result<{ eventId: string; after: string }, ServeFault>> {
    if (this.#closing) return err(fault(503, "internal", "Server is stopping"));
    const e = this.#entry(sessionId);
    if (key !== undefined) {
      const seen = e.answered.get(key);
      if (seen !== undefined) return ok(seen);
    }
    if (e.running || e.opening !== undefined || e.ending !== undefined) {
      return err(
        fault(409, "session_busy", `Session ${sessionId} is running a turn`),
      );
    }
    // No idle release while a message is on its way in (it would close the
    // session under it): stopped before the first wait, not scheduled
    // again meanwhile, scheduled again when no turn started.
    if (e.idle !== undefined) clearTimeout(e.idle);
    e.idle = undefined;
    e.sending++;
    let sent: Result<{ eventId: string; after: string }, ServeFault>;
    try {
      sent = await this.#send(e, text, key);
    } finally {
      e.sending--;
    }
    if (!e.running && e.opened !== undefined) this.#idleLater(e);
    return sent;
  }

  async #send(
    e: Entry,
    text: string,
    key: string | undefined,
  ): Promise<Result<{ eventId: string; after: string }, ServeFault>> {
    const sessionId = e.id;
    const opened = await this.#live(e);
    if (!opened.ok) {
      // An unknown id leaves nothing behind.
      if (opened.error.status === 404 && this.log(sessionId).clients === 0) {
        this.#entries.delete(sessionId);
        this.#events.forget(sessionId);
      }
      return opened;
    }
    // The turn's first id follows every event logged so far (on a shared
    // table: every event its last writer wrote).
    await this.#events.settle(sessionId);
    if (this.#events.shared && this.log(sessionId).view.running && !e.running) {
      // A turn of a holder that died (this server took the lease over):
      // it ends in the log, failed.
      this.#serverEvent(e, { type: "server:idle", outcome: "failed" });
      await this.#events.settle(sessionId);
    }
    if (e.running || e.ending !== undefined) {
      return err(
        fault(409, "session_busy", `Session ${sessionId} is running a turn`),
      );
    }
    const { live } = opened.value;
    if (live.session.state !== "idle") {
      return err(
        fault(
          409,
          "session_busy",
          `Session ${sessionId} is not idle (${live.session.state})`,
        ),
      );
    }
    const log = this.log(sessionId);
    const accepted = { eventId: log.nextId, after: log.lastId };
    if (key !== undefined) {
      e.answered.set(key, accepted);
      if (e.answered.size > MAX_KEYS) {
        const first = e.answered.keys().next().value;
        if (first !== undefined) e.answered.delete(first);
      }
    }
    e.running = true;
    const turnEnd = Promise.withResolvers<void>();
    e.turnEnd = turnEnd;
    e.turn = live.session.sendMessage(text).then(
      (r) => r.kind,
      () => "failed" as const,
    ).then(async (outcome) => {
      // The idle marker follows every event of the turn: wait until the
      // sink has taken each one published so far and, on an asynchronous
      // store (whose events leave after the turn's commit), the turn's
      // last one (boundedly).
      await live.events.settled();
      if (outcome !== "failed") {
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([
          turnEnd.promise,
          new Promise((r) => timer = setTimeout(r, TURN_END_WAIT_MS)),
        ]);
        clearTimeout(timer);
      }
      e.turnEnd = undefined;
      e.running = false;
      // Ended by a cancel: as a cancel ends it (the session's own
      // outcome is its abort).
      this.#serverEvent(e, {
        type: "server:idle",
        outcome: e.ending === undefined ? outcome : "cancelled",
      });
      e.turn = undefined;
      if (e.ending === undefined) this.#idleLater(e);
    });
    if (this.#events.shared) {
      // Another server asked at once sees the turn run: its start is in
      // the table before the answer leaves.
      await live.events.settled();
      await this.#events.settle(sessionId);
    }
    return ok(accepted);
  }

  /**
   * Aborts the running turn (and rejects what it waits for).
   *
   * @param sessionId The session.
   * @returns Whether a turn was running.
   */
  abort(sessionId: string): boolean {
    const e = this.#entries.get(sessionId);
    if (e?.opened === undefined || !e.running) return false;
    for (const w of [...e.waiting.values()]) w.resolve("reject", "abort");
    e.opened.live.session.abort();
    return true;
  }

  /**
   * Cancels a live session (it stays stored and resumable) and releases
   * its lease. On a shared log a running turn is aborted first and its
   * end and `server:idle` (outcome `cancelled`) logged while the lease is
   * held; a cancel already under way is waited for.
   *
   * @param sessionId The session.
   * @returns Whether it was live here.
   */
  async cancel(sessionId: string): Promise<boolean> {
    const e = this.#entries.get(sessionId);
    if (e?.ending !== undefined) return await e.ending;
    const opened = e?.opened;
    if (e === undefined || opened === undefined) return false;
    if (e.idle !== undefined) clearTimeout(e.idle);
    e.idle = undefined;
    for (const w of [...e.waiting.values()]) w.resolve("reject", "abort");
    if (this.#events.shared && e.turn !== undefined) {
      // On a shared table only the lease holder writes, and closing the
      // session releases the lease: the turn is ended first (aborted, its
      // end and its `server:idle` logged while the lease is held), then
      // the session is closed.
      e.ending = this.#endTurn(e, e.turn, opened).finally(() => {
        e.ending = undefined;
      });
      return await e.ending;
    }
    return await this.#shut(e, opened);
  }

  async #endTurn(
    e: Entry,
    turn: Promise<void>,
    opened: OpenedSession,
  ): Promise<boolean> {
    opened.live.session.abort();
    await turn;
    await this.#events.settle(e.id);
    return await this.#shut(e, opened);
  }

  /** Closes a live session (its lease released). */
  async #shut(e: Entry, opened: OpenedSession): Promise<boolean> {
    if (e.idle !== undefined) clearTimeout(e.idle);
    e.idle = undefined;
    e.opened = undefined;
    opened.live.close();
    await opened.drained;
    await opened.finish();
    return true;
  }

  /**
   * Answers a waiting approval.
   *
   * @param sessionId The session.
   * @param requestId The approval's id.
   * @param decision The answer.
   * @returns The answer taken, or a fault: 404 when it is not waiting,
   * 423 naming the holder when it waits in another server (answered
   * there only).
   */
  async answer(
    sessionId: string,
    requestId: string,
    decision: ApprovalDecision,
  ): Promise<Result<true, ServeFault>> {
    const e = this.#entries.get(sessionId);
    const w = e?.waiting.get(requestId);
    if (w !== undefined) {
      w.resolve(decision, "client");
      return ok(true);
    }
    const missing = err(
      fault(404, "not_found", `No approval ${requestId} is waiting`),
    );
    if (!this.#events.shared || (e !== undefined && this.#heldHere(e))) {
      return missing;
    }
    const seen = e ?? this.#entry(sessionId);
    await this.#events.settle(sessionId);
    await this.#readHolder(seen);
    const elsewhere = this.#observed(seen).pendingApprovals.some((a) =>
      a.requestId === requestId
    );
    if (elsewhere && seen.holder !== undefined) {
      return err(fault(
        423,
        "session_busy",
        `Approval ${requestId} waits in the server that runs session ${sessionId} (${seen.holder}): answer it there`,
      ));
    }
    if (e === undefined) this.#dropUnused(sessionId);
    return missing;
  }

  /**
   * The live lease holder of a session another server holds (on a shared
   * log; read now), or `undefined`.
   *
   * @param sessionId The session.
   * @returns The holder, or `undefined`.
   */
  async holderElsewhere(sessionId: string): Promise<string | undefined> {
    if (!this.#events.shared) return undefined;
    const known = this.#entries.get(sessionId);
    const e = known ?? this.#entry(sessionId);
    if (this.#heldHere(e)) return undefined;
    await this.#readHolder(e);
    const holder = e.holder;
    if (known === undefined) this.#dropUnused(sessionId);
    return holder;
  }

  /** Forgets a session nothing here uses (no turn, no client). */
  #dropUnused(sessionId: string): void {
    const e = this.#entries.get(sessionId);
    if (e !== undefined && this.#heldHere(e)) return;
    if (this.#events.log(sessionId).clients > 0) return;
    this.#entries.delete(sessionId);
    this.#events.forget(sessionId);
  }

  /**
   * A session's log (created when first asked for).
   *
   * @param sessionId The session.
   * @returns Its log.
   */
  log(sessionId: string): EventLog {
    this.#entry(sessionId);
    return this.#events.log(sessionId);
  }

  /**
   * Whether a turn runs in a session.
   *
   * @param sessionId The session.
   * @returns Whether it runs.
   */
  running(sessionId: string): boolean {
    const e = this.#entries.get(sessionId);
    return e !== undefined && this.#observed(e).running;
  }

  /**
   * A session's state: its stored record and transcript, whether a turn
   * runs, the approvals waiting and the last event id.
   *
   * @param sessionId The session.
   * @returns The state, or a fault (404 when unknown).
   */
  async state(sessionId: string): Promise<Result<SessionState, ServeFault>> {
    const known = this.#entries.has(sessionId);
    await this.#events.settle(sessionId);
    // On a shared log: who holds it, read with the record.
    const holder = this.#events.shared
      ? this.#readHolder(this.#entry(sessionId))
      : undefined;
    // The cursor is read with the record (a synchronous store reads both
    // at once, so the snapshot holds exactly the events up to it); an
    // asynchronous store's record may hold more than the cursor, never
    // less: a client may see the end of a turn twice, never miss it.
    const reading = this.#o.backend.show(sessionId);
    const lastEventId = this.#events.log(sessionId).lastId;
    const shown = await reading;
    await holder;
    if (!shown.ok) return shown;
    const e = this.#entries.get(sessionId);
    if (shown.value === undefined && e?.opened === undefined) {
      // An unknown id leaves nothing behind.
      if (!known) this.#dropUnused(sessionId);
      return err(fault(404, "not_found", `No session with id ${sessionId}`));
    }
    const observed = e === undefined
      ? { running: false, pendingApprovals: [] }
      : this.#observed(e);
    return ok({
      sessionId,
      session: (shown.value ?? null) as Record<string, unknown> | null,
      ...observed,
      lastEventId,
    });
  }

  /**
   * Counts a client in or out; a session with clients gets heartbeats.
   *
   * @param sessionId The session.
   */
  clientsChanged(sessionId: string): void {
    const e = this.#entries.get(sessionId);
    if (e === undefined) return;
    const clients = this.log(sessionId).clients;
    if (clients > 0 && e.heartbeat === undefined) {
      // Shown to this server's clients only (on a shared table it takes
      // no number of its own).
      // A turn another server runs is checked for a live holder first (a
      // stream waiting for its idle ends at a heartbeat once it has none).
      const beat = (): void => {
        if (e.heartbeat === undefined) return;
        this.#events.pulse(e.id, {
          type: "server:heartbeat",
          sessionId: e.id,
          timestamp: new Date().toISOString(),
        } as ServerEvent);
      };
      e.heartbeat = setInterval(
        () => {
          if (this.#events.shared && this.#observed(e).running) {
            void this.#readHolder(e).then(beat);
          } else beat();
        },
        this.#o.heartbeatMs,
      );
    } else if (clients === 0 && e.heartbeat !== undefined) {
      clearInterval(e.heartbeat);
      e.heartbeat = undefined;
    }
  }

  /**
   * Stops the hub: running turns end as a chat's do on a signal, waiting
   * approvals are rejected, every live session is closed (its lease
   * released).
   */
  async close(): Promise<void> {
    this.#closing = true;
    const all = [...this.#entries.values()];
    for (const e of all) {
      if (e.heartbeat !== undefined) clearInterval(e.heartbeat);
      e.heartbeat = undefined;
      if (e.idle !== undefined) clearTimeout(e.idle);
      e.idle = undefined;
      for (const w of [...e.waiting.values()]) w.resolve("reject", "abort");
    }
    await Promise.all(all.map((e) => e.releasing));
    await Promise.all(all.map((e) => this.cancel(e.id)));
    // Every event written before the store closes.
    await Promise.all(all.map((e) => this.#events.settle(e.id)));
    await this.#events.close();
  }
}
