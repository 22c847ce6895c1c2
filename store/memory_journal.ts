/**
 * The memory store's writer leases and usage-coverage journal, with the
 * SQLite store's semantics (one store object stands for one file).
 *
 * @module
 */
import {
  checkInvocationStart,
  checkSettlement,
  type InvocationSettlement,
  type InvocationStart,
  type PendingInvocation,
  type UsageCoverage,
} from "./coverage_check.ts";
import {
  type LeaseAnswer,
  type LeaseClaim,
  leaseDecision,
} from "./lease_policy.ts";
import type { CostEntry, SessionLease } from "./store.ts";

interface Invocation {
  pending: PendingInvocation;
  settled?: InvocationSettlement;
  turnNumber?: number;
}

interface StoredLease {
  lease: SessionLease;
  heartbeatAtMs: number;
}

/**
 * Leases and invocations of every session of one memory store. A second
 * claimant is refused while the first holds the lease, as two processes
 * on one file are; writes are not checked against it (one store object
 * lives in one process, and its clock decides staleness: the default one
 * never moves, so a lease is taken over only from a holder whose process
 * is gone).
 */
export class MemoryJournal {
  readonly #leases = new Map<string, StoredLease>();
  // Per session, by id in journal order, the open calls: pending, or
  // settled with spend no write has recorded yet. A call leaves when
  // nothing is left to record, so the journal stays as small as what is
  // open, however long the session.
  readonly #invocations = new Map<string, Map<string, Invocation>>();

  /** As `SessionStore.acquireLease`, for a known session. */
  acquire(sessionId: string, claim: LeaseClaim, now: number): LeaseAnswer {
    const answer = leaseDecision(this.#leases.get(sessionId), claim, now);
    if (!answer.ok) return answer;
    const at = new Date(now).toISOString();
    const lease: SessionLease = {
      holderId: claim.holderId,
      acquiredAt: at,
      heartbeatAt: at,
    };
    if (claim.pid !== undefined) lease.pid = claim.pid;
    if (claim.hostname !== undefined) lease.hostname = claim.hostname;
    this.#leases.set(sessionId, { lease, heartbeatAtMs: now });
    return answer;
  }

  /** As `SessionStore.renewLease`. */
  renew(sessionId: string, holderId: string, now: number): boolean {
    const stored = this.#leases.get(sessionId);
    if (stored?.lease.holderId !== holderId) return false;
    stored.heartbeatAtMs = now;
    stored.lease.heartbeatAt = new Date(now).toISOString();
    return true;
  }

  /** As `SessionStore.releaseLease`. */
  release(sessionId: string, holderId: string): void {
    if (this.#leases.get(sessionId)?.lease.holderId === holderId) {
      this.#leases.delete(sessionId);
    }
  }

  /** As `SessionStore.readLease`. */
  lease(sessionId: string): SessionLease | undefined {
    const stored = this.#leases.get(sessionId)?.lease;
    return stored === undefined ? undefined : { ...stored };
  }

  /** As `SessionStore.clearLease`. */
  clear(sessionId: string): SessionLease | undefined {
    const removed = this.lease(sessionId);
    this.#leases.delete(sessionId);
    return removed;
  }

  /** As `SessionStore.beginInvocation`, checked, under `id`. */
  begin(
    sessionId: string,
    id: string,
    invocation: InvocationStart,
    startedAt: string,
  ): void {
    checkInvocationStart(invocation);
    const { turnNumber, purpose, provider, model } = invocation;
    let byId = this.#invocations.get(sessionId);
    if (byId === undefined) {
      byId = new Map();
      this.#invocations.set(sessionId, byId);
    }
    byId.set(id, {
      pending: { id, purpose, provider, model, startedAt },
      ...(turnNumber === undefined ? {} : { turnNumber }),
    });
  }

  /** As `SessionStore.settleInvocation`, checked. */
  settle(sessionId: string, settlement: InvocationSettlement): void {
    checkSettlement(settlement);
    const byId = this.#invocations.get(sessionId);
    const found = byId?.get(settlement.id);
    if (found === undefined || found.settled !== undefined) return;
    if (settlement.costMicrocents === 0) byId?.delete(settlement.id);
    else found.settled = { ...settlement };
  }

  /** Removes, per cost entry a write records, its settled invocation. */
  markRecorded(sessionId: string, costs: readonly CostEntry[]): void {
    const open = this.#invocations.get(sessionId);
    if (open === undefined) return;
    for (const c of costs) {
      if (c.costMicrocents === 0) continue;
      for (const [id, i] of open) {
        if (
          i.settled !== undefined && i.pending.model === c.model &&
          i.settled.inputTokens === c.inputTokens &&
          i.settled.outputTokens === c.outputTokens &&
          i.settled.costMicrocents === c.costMicrocents
        ) {
          open.delete(id);
          break;
        }
      }
    }
  }

  /**
   * The highest turn number among the session's open calls: its turns
   * used are at least this (a call whose end was never seen).
   */
  openTurnNumber(sessionId: string): number | undefined {
    let high: number | undefined;
    for (const i of this.#invocations.get(sessionId)?.values() ?? []) {
      if (i.turnNumber !== undefined && i.turnNumber > (high ?? 0)) {
        high = i.turnNumber;
      }
    }
    return high;
  }

  /** As `SessionStore.coverage`. */
  coverage(sessionId: string): UsageCoverage {
    const list = this.#invocations.get(sessionId)?.values() ?? [];
    let unrecorded = 0;
    const pending: PendingInvocation[] = [];
    for (const i of list) {
      if (i.settled === undefined) pending.push({ ...i.pending });
      else unrecorded += i.settled.costMicrocents;
    }
    return { pending, unrecordedMicrocents: unrecorded };
  }
}
