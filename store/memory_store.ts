/**
 * An in-memory {@linkcode SessionStore} with the SQLite store's semantics
 * (validation on write, sequence numbers, costs, title, turn keys), for
 * tests and one-shot runs that must not touch `history.db`.
 *
 * @module
 */
import { isAbsolute } from "../schema/paths.ts";
import { checkNewSession } from "./record_check.ts";
import type { SessionMessage } from "../schema/message.ts";
import { SessionNotFoundError } from "./errors.ts";
import { markerBoundary, markerContent } from "./markers.ts";
import { checkMessage } from "./message_codec.ts";
import type {
  AgentSessionRecord,
  BoundaryMarker,
  CostEntry,
  LoadedSession,
  ModelCostTotals,
  NewSession,
  SessionLease,
  SessionStore,
  TurnCommit,
} from "./store.ts";
import { deriveTitle } from "./title.ts";
import { nextTurnKey, seedTurnKey } from "./turn_key.ts";
import { checkCost, checkTurnsUsed, planTurnRows } from "./turn_plan.ts";
import { type TurnUsage, turnUsageDelta } from "./turn_usage.ts";
import type {
  InvocationSettlement,
  InvocationStart,
  UsageCoverage,
} from "./coverage_check.ts";
import type { LeaseAnswer, LeaseClaim } from "./lease_policy.ts";
import { MemoryJournal } from "./memory_journal.ts";

export type { ModelCostTotals } from "./store.ts";

function raiseTurnsUsed(
  record: AgentSessionRecord,
  turnsUsed: number | undefined,
): void {
  if (turnsUsed !== undefined && turnsUsed > (record.turnsUsed ?? 0)) {
    record.turnsUsed = turnsUsed;
  }
}

interface Entry {
  record: AgentSessionRecord;
  updatedAtMs: number;
  messages: SessionMessage[];
  costs: Map<string, ModelCostTotals>;
  turns: Map<number, TurnUsage>;
  turnMark: number | undefined;
}

/** As the SQLite store's `relavium_turn_usage` rows. */
function addTurnUsage(entry: Entry, d: TurnUsage | undefined): void {
  if (d === undefined) return;
  const row = entry.turns.get(d.turnNumber);
  if (row === undefined) {
    entry.turns.set(d.turnNumber, d);
    return;
  }
  row.inputTokens += d.inputTokens;
  row.outputTokens += d.outputTokens;
  row.costMicrocents += d.costMicrocents;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

class MemorySessionStore implements SessionStore {
  readonly #sessions = new Map<string, Entry>();
  readonly #clock: { now(): number };
  readonly #ids: () => string;
  readonly #journal = new MemoryJournal();

  constructor(options: Parameters<typeof createMemoryStore>[0] & object) {
    let n = 0;
    this.#clock = options.clock ?? { now: () => 0 };
    this.#ids = options.ids ?? (() => `mem-${n++}`);
  }

  #visible(sessionId: string): Entry {
    const entry = this.#sessions.get(sessionId);
    if (entry === undefined || entry.record.deletedAt !== undefined) {
      throw new SessionNotFoundError();
    }
    return entry;
  }

  #touch(entry: Entry, now: number): void {
    entry.updatedAtMs = now;
    entry.record.updatedAt = iso(now);
  }

  #addCosts(entry: Entry, costs: CostEntry[]): void {
    for (const c of costs) {
      const row = entry.costs.get(c.model) ?? {
        model: c.model,
        inputTokens: 0,
        outputTokens: 0,
        costMicrocents: 0,
        callCount: 0,
        unpricedCalls: 0,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        cacheReadMicrocents: 0,
        cacheWriteMicrocents: 0,
        usageUnknownCalls: 0,
      };
      row.inputTokens += c.inputTokens;
      row.cacheReadTokens = (row.cacheReadTokens ?? 0) +
        (c.cacheReadTokens ?? 0);
      row.cacheWriteTokens = (row.cacheWriteTokens ?? 0) +
        (c.cacheWriteTokens ?? 0);
      row.cacheReadMicrocents = (row.cacheReadMicrocents ?? 0) +
        (c.cacheReadMicrocents ?? 0);
      row.cacheWriteMicrocents = (row.cacheWriteMicrocents ?? 0) +
        (c.cacheWriteMicrocents ?? 0);
      if (c.usageUnknown === true) {
        row.usageUnknownCalls = (row.usageUnknownCalls ?? 0) + 1;
      }
      row.outputTokens += c.outputTokens;
      row.costMicrocents += c.costMicrocents;
      row.callCount += 1;
      if (!c.priced) row.unpricedCalls += 1;
      entry.costs.set(c.model, row);
      entry.record.totalCostMicrocents += c.costMicrocents;
    }
    this.#journal.markRecorded(entry.record.id, costs);
  }

  create(session: NewSession): AgentSessionRecord {
    checkNewSession(session);
    if (this.#sessions.has(session.id)) {
      throw new TypeError("Cannot create session: the id is taken");
    }
    const now = this.#clock.now();
    const record: AgentSessionRecord = {
      id: session.id,
      agentSlug: session.agentSlug,
      context: structuredClone(session.context),
      status: "active",
      totalInputTokens: 0,
      totalOutputTokens: 0,
      totalCostMicrocents: 0,
      totalConservativeMicrocents: 0,
      createdAt: iso(now),
      updatedAt: iso(now),
    };
    if (session.agentSnapshot !== undefined) {
      record.agentSnapshot = structuredClone(session.agentSnapshot);
    }
    if (session.modelId !== undefined) record.modelId = session.modelId;
    this.#sessions.set(session.id, {
      record,
      updatedAtMs: now,
      messages: [],
      costs: new Map(),
      turns: new Map(),
      turnMark: undefined,
    });
    return structuredClone(record);
  }

  commitTurn(sessionId: string, turn: TurnCommit): void {
    const entry = this.#visible(sessionId);
    checkTurnsUsed(turn.turnsUsed);
    const now = this.#clock.now();
    const timestamp = iso(now);
    const rows = planTurnRows(sessionId, turn, { ids: this.#ids, timestamp });
    let seq = (entry.messages.at(-1)?.sequenceNumber ?? -1) + 1;
    for (const row of rows) {
      const message: SessionMessage = {
        id: row.id,
        sessionId,
        sequenceNumber: seq++,
        role: row.role,
        content: structuredClone(row.content),
        timestamp,
      };
      if (row.modelId !== undefined) message.modelId = row.modelId;
      entry.messages.push(message);
    }
    const r = entry.record;
    r.totalInputTokens += turn.tokensUsed.input;
    r.totalOutputTokens += turn.tokensUsed.output;
    r.status = "active";
    if (turn.modelId !== undefined) r.modelId = turn.modelId;
    if (r.title === undefined) {
      const title = deriveTitle(turn.userText);
      if (title !== undefined) r.title = title;
    }
    this.#addCosts(entry, turn.costs);
    raiseTurnsUsed(r, turn.turnsUsed);
    addTurnUsage(entry, turnUsageDelta(turn.turnsUsed, turn.costs, true));
    this.#touch(entry, now);
  }

  recordCosts(
    sessionId: string,
    costs: CostEntry[],
    turnsUsed?: number,
  ): void {
    const entry = this.#visible(sessionId);
    for (const cost of costs) checkCost(cost);
    checkTurnsUsed(turnsUsed);
    this.#addCosts(entry, costs);
    raiseTurnsUsed(entry.record, turnsUsed);
    addTurnUsage(entry, turnUsageDelta(turnsUsed, costs, false));
  }

  appendMarker(sessionId: string, marker: BoundaryMarker): number | undefined {
    const entry = this.#visible(sessionId);
    const content = markerContent(marker);
    for (const cost of marker.costs ?? []) checkCost(cost);
    const d = markerBoundary(entry.messages, marker.keptTurnCount);
    const now = this.#clock.now();
    let row: SessionMessage | undefined;
    if (d !== undefined) {
      row = checkMessage({
        id: this.#ids(),
        sessionId,
        sequenceNumber: (entry.messages.at(-1)?.sequenceNumber ?? -1) + 1,
        role: "system",
        content,
        compaction: { droppedThroughSequence: d },
        timestamp: iso(now),
      });
    }
    if (row !== undefined) entry.messages.push(row);
    const used = marker.tokensUsed;
    if (used !== undefined) {
      entry.record.totalInputTokens += used.input;
      entry.record.totalOutputTokens += used.output;
    }
    this.#addCosts(entry, marker.costs ?? []);
    this.#touch(entry, now);
    return d;
  }

  allocateTurnKey(sessionId: string): number {
    const entry = this.#visible(sessionId);
    const mark = entry.turnMark === undefined || entry.turnMark === 0
      ? seedTurnKey(entry.messages)
      : entry.turnMark;
    const next = nextTurnKey(mark);
    entry.turnMark = next;
    return next;
  }

  setStatus(sessionId: string, status: "active" | "ended"): void {
    if (status !== "active" && status !== "ended") {
      throw new TypeError("Cannot set status: expected active or ended");
    }
    const entry = this.#visible(sessionId);
    entry.record.status = status;
    this.#touch(entry, this.#clock.now());
  }

  markExported(sessionId: string, workflowPath: string): void {
    if (typeof workflowPath !== "string" || !isAbsolute(workflowPath)) {
      throw new TypeError("Cannot mark exported: the path must be absolute");
    }
    const entry = this.#visible(sessionId);
    entry.record.status = "exported";
    entry.record.exportedWorkflowPath = workflowPath;
  }

  softDelete(sessionId: string): boolean {
    const entry = this.#sessions.get(sessionId);
    if (entry === undefined || entry.record.deletedAt !== undefined) {
      return false;
    }
    entry.record.deletedAt = iso(this.#clock.now());
    return true;
  }

  list(): AgentSessionRecord[] {
    return [...this.#sessions.values()]
      .filter((e) => e.record.deletedAt === undefined)
      .sort((a, b) =>
        b.updatedAtMs - a.updatedAtMs ||
        (a.record.id < b.record.id ? 1 : a.record.id > b.record.id ? -1 : 0)
      )
      .map((e) => structuredClone(e.record));
  }

  load(sessionId: string): LoadedSession | undefined {
    const entry = this.#sessions.get(sessionId);
    if (entry === undefined || entry.record.deletedAt !== undefined) {
      return undefined;
    }
    const record = structuredClone(entry.record);
    raiseTurnsUsed(record, this.#journal.openTurnNumber(sessionId));
    return { record, messages: structuredClone(entry.messages) };
  }

  costs(sessionId: string): ModelCostTotals[] {
    return this.costsOf(sessionId);
  }

  turnUsage(sessionId: string): TurnUsage[] {
    const entry = this.#sessions.get(sessionId);
    return entry === undefined
      ? []
      : [...entry.turns.values()].sort((a, b) => a.turnNumber - b.turnNumber)
        .map((t) => ({ ...t }));
  }

  /** Per-model spend rows of a session (what `session_costs` would hold). */
  costsOf(sessionId: string): ModelCostTotals[] {
    const entry = this.#sessions.get(sessionId);
    return entry === undefined
      ? []
      : [...entry.costs.values()].map((c) => ({ ...c }));
  }

  beginInvocation(sessionId: string, invocation: InvocationStart): string {
    this.#visible(sessionId);
    const id = this.#ids();
    this.#journal.begin(sessionId, id, invocation, iso(this.#clock.now()));
    return id;
  }

  settleInvocation(
    sessionId: string,
    settlement: InvocationSettlement,
  ): void {
    this.#visible(sessionId);
    this.#journal.settle(sessionId, settlement);
  }

  coverage(sessionId: string): UsageCoverage {
    return this.#journal.coverage(sessionId);
  }

  acquireLease(sessionId: string, claim: LeaseClaim): LeaseAnswer {
    if (typeof claim.holderId !== "string" || claim.holderId === "") {
      throw new TypeError("Cannot take the lease: empty holderId");
    }
    this.#visible(sessionId);
    return this.#journal.acquire(sessionId, claim, this.#clock.now());
  }

  renewLease(sessionId: string, holderId: string): boolean {
    return this.#journal.renew(sessionId, holderId, this.#clock.now());
  }

  releaseLease(sessionId: string, holderId: string): void {
    this.#journal.release(sessionId, holderId);
  }

  readLease(sessionId: string): SessionLease | undefined {
    return this.#journal.lease(sessionId);
  }

  clearLease(sessionId: string): SessionLease | undefined {
    return this.#journal.clear(sessionId);
  }

  close(): void {}
}

/**
 * A memory store: the {@linkcode SessionStore} plus a read of per-model
 * spend (what `session_costs` would hold).
 */
export interface MemoryStore extends SessionStore {
  /** Per-model spend rows of a session, in first-recorded order. */
  costs(sessionId: string): ModelCostTotals[];
  /** The same as {@linkcode MemoryStore.costs} (its older name). */
  costsOf(sessionId: string): ModelCostTotals[];
}

/**
 * Creates an empty in-memory store. Nothing is persisted; `close()` is a
 * no-op. Reads return copies.
 *
 * @param options Optional clock and id source (deterministic defaults).
 * @returns The store.
 *
 * @example Commit and resume
 * ```ts
 * import { createMemoryStore } from "@relavium/session/store";
 * import { reconstructSessionState } from "./projection.ts";
 * import assert from "node:assert/strict";
 * const store = createMemoryStore();
 * store.create({ id: "s", agentSlug: "mini", context: { workingDir: "/w", fsScopeTier: "sandboxed" } });
 * store.commitTurn("s", {
 *   userText: "hi", rounds: [], finalText: "hello", modelId: "m",
 *   tokensUsed: { input: 3, output: 1 }, costs: [{ model: "m", inputTokens: 3, outputTokens: 1, costMicrocents: 50, priced: true }],
 * });
 * const loaded = store.load("s");
 * assert.ok(loaded);
 * const state = reconstructSessionState(loaded.record, loaded.messages);
 * assert.equal(state.turnCount, 1);
 * assert.equal(state.cumulativeCostMicrocents, 50);
 * ```
 */
export function createMemoryStore(
  options: {
    /** Source of epoch milliseconds; default always 0. */
    clock?: { now(): number };
    /** Source of fresh row ids; default `mem-<n>` per store. */
    ids?: () => string;
  } = {},
): MemoryStore {
  return new MemorySessionStore(options);
}
