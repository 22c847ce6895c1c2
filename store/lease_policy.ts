/**
 * The writer-lease rule both stores apply: when a stored lease may be
 * taken over, and the message that names its holder.
 *
 * @module
 */
import type { SessionLease, SessionStore } from "./store.ts";

/**
 * A heartbeat older than this (ms) means the holder is gone: a live holder
 * refreshes it every {@linkcode LEASE_HEARTBEAT_MS}.
 */
export const LEASE_STALE_MS = 60_000;

/** How often a live holder refreshes its heartbeat (ms). */
export const LEASE_HEARTBEAT_MS = 15_000;

/** What a claimant brings to {@linkcode SessionStore.acquireLease}. */
export type LeaseClaim = Parameters<
  NonNullable<SessionStore["acquireLease"]>
>[1];

/** What {@linkcode SessionStore.acquireLease} answers. */
export type LeaseAnswer = ReturnType<
  NonNullable<SessionStore["acquireLease"]>
>;

/**
 * Whether `lease` may be taken over by `claim`: its heartbeat is older
 * than {@linkcode LEASE_STALE_MS}, or it was held on the claimant's host
 * by a process that is gone.
 *
 * @param lease The stored lease, its heartbeat in epoch ms.
 * @param claim The claimant (host name and liveness check).
 * @param now Epoch ms.
 * @returns `true` when the lease is stale.
 */
export function isStaleLease(
  lease: { pid?: number; hostname?: string; heartbeatAtMs: number },
  claim: LeaseClaim,
  now: number,
): boolean {
  if (now - lease.heartbeatAtMs > LEASE_STALE_MS) return true;
  if (
    lease.pid === undefined || lease.hostname === undefined ||
    lease.hostname !== claim.hostname
  ) return false;
  return claim.isAlive?.(lease.pid) === false;
}

/**
 * What a claim gets against the stored lease: taken when there is none,
 * when it is the claimant's own, or when it is stale (`tookOver`); else
 * refused with the live lease. The caller writes the claim on `ok`.
 *
 * @param stored The stored lease and its heartbeat in epoch ms, if any.
 * @param claim The claimant.
 * @param now Epoch ms.
 * @returns The answer.
 */
export function leaseDecision(
  stored: { lease: SessionLease; heartbeatAtMs: number } | undefined,
  claim: LeaseClaim,
  now: number,
): LeaseAnswer {
  if (
    stored === undefined ||
    (stored.lease.holderId === claim.holderId &&
      stored.lease.damaged === undefined)
  ) {
    return { ok: true };
  }
  const lease = { ...stored.lease };
  // A damaged row names no holder that can be judged: released by hand.
  if (lease.damaged !== undefined) return { ok: false, heldBy: lease };
  if (
    !isStaleLease({ ...lease, heartbeatAtMs: stored.heartbeatAtMs }, claim, now)
  ) {
    return { ok: false, heldBy: lease };
  }
  return { ok: true, tookOver: lease };
}

/**
 * Names a lease's holder for a person: `process 41 on host "box"`, or the
 * holder id when the process is unknown.
 *
 * @param lease The lease.
 * @returns The text.
 */
export function leaseHolderText(lease: SessionLease): string {
  if (lease.damaged !== undefined) {
    const pid = lease.pid === undefined ? "" : `, process ${lease.pid}`;
    const host = lease.hostname === undefined
      ? ""
      : ` on host ${JSON.stringify(lease.hostname)}`;
    return `a damaged lease row (${lease.damaged} is invalid${pid}${host})`;
  }
  if (lease.pid === undefined) return `holder ${lease.holderId}`;
  const host = lease.hostname === undefined
    ? ""
    : ` on host ${JSON.stringify(lease.hostname)}`;
  return `process ${lease.pid}${host}`;
}

/**
 * The error a write throws when this handle's lease on the session was
 * taken over by another writer (the write changes nothing).
 *
 * @param sessionId The session.
 * @param current The lease now stored, if any.
 * @returns The error.
 */
export function leaseLostError(
  sessionId: string,
  current: SessionLease | undefined,
): Error {
  const error = new Error(
    `Cannot write session ${sessionId}: its writer lease ${
      current === undefined
        ? "was released"
        : `was taken over by ${leaseHolderText(current)}${
          current.acquiredAt === "" ? "" : `, since ${current.acquiredAt}`
        }`
    } (nothing of this write was kept; this chat can no longer write it: continue in that writer, or close it and run chat-resume ${sessionId})`,
  );
  error.name = "SessionLeaseError";
  return error;
}
