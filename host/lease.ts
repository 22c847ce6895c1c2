/**
 * The host's side of one writer per session and of usage coverage: the
 * session's lease, held from open or resume until close with a heartbeat,
 * and the engine hooks that journal each provider invocation in the store.
 *
 * @module
 */
import type { SessionHooks } from "../session/deps.ts";
import type { SessionLease, SessionStore } from "../store/store.ts";
import { LEASE_HEARTBEAT_MS, leaseHolderText } from "../store/lease_policy.ts";
import type { SessionRuntime } from "./runtime.ts";

/**
 * A lease this process holds (or, on a store without leases, nothing to
 * hold: `lost` stays `false` and `release` does nothing).
 */
export interface HeldLease {
  /** Whether another writer took it over (this process must not write). */
  readonly lost: boolean;
  /** The holder named in errors. */
  readonly holderId: string | undefined;
  /** Stops the heartbeat and releases it (idempotent). */
  release(): void;
}

/**
 * Takes the session's lease for this process and keeps its heartbeat
 * fresh (an unreferenced timer: it never keeps the process alive).
 *
 * @param store The session's store.
 * @param sessionId The session.
 * @param runtime The ids and this process's identity.
 * @returns The held lease, or the live lease another writer holds.
 * @throws Whatever the store throws (an unknown session, a corrupt row).
 */
export function holdLease(
  store: SessionStore,
  sessionId: string,
  runtime: Pick<SessionRuntime, "ids" | "process">,
): { ok: true; lease: HeldLease } | { ok: false; heldBy: SessionLease } {
  if (
    store.acquireLease === undefined || store.renewLease === undefined ||
    store.releaseLease === undefined
  ) {
    const none: HeldLease = { lost: false, holderId: undefined, release() {} };
    return { ok: true, lease: none };
  }
  const holderId = runtime.ids();
  const me = runtime.process;
  const answer = store.acquireLease(sessionId, {
    holderId,
    ...(me === undefined ? {} : { pid: me.pid }),
    ...(me?.hostname === undefined ? {} : { hostname: me.hostname }),
    ...(me?.isAlive === undefined ? {} : { isAlive: me.isAlive }),
  });
  if (!answer.ok) return { ok: false, heldBy: answer.heldBy };
  const renew = store.renewLease.bind(store);
  const releaseLease = store.releaseLease.bind(store);
  let lost = false;
  let released = false;
  const timer = setInterval(() => {
    try {
      lost = !renew(sessionId, holderId);
    } catch {
      // A closed or failing store: the next write reports it.
      lost = true;
    }
    if (lost) clearInterval(timer);
  }, LEASE_HEARTBEAT_MS);
  Deno.unrefTimer(timer);
  return {
    ok: true,
    lease: {
      get lost(): boolean {
        return lost;
      },
      holderId,
      release(): void {
        if (released) return;
        released = true;
        clearInterval(timer);
        if (!lost) releaseLease(sessionId, holderId);
      },
    },
  };
}

/**
 * The message of a refused lease: who holds the session and how to go on.
 *
 * @param sessionId The session.
 * @param heldBy The live lease.
 * @returns The message.
 */
export function leaseHeldMessage(
  sessionId: string,
  heldBy: SessionLease,
): string {
  return `Session ${sessionId} is open in another writer (${
    leaseHolderText(heldBy)
  }, since ${heldBy.acquiredAt}): close that chat first, or, if it is gone, wait a minute for its lease to expire and try again`;
}

/**
 * The engine hooks that journal each provider invocation in the store
 * (pending before it leaves, settled after), and on resume the stored
 * count of invocations left pending. Empty on a store without a journal.
 *
 * @param store The session's store.
 * @param sessionId The session.
 * @param lease The session's lease: once lost, nothing more is sent.
 * @returns The hooks to add.
 */
export function coverageHooks(
  store: SessionStore,
  sessionId: string,
  lease: HeldLease,
): Pick<SessionHooks, "invocationStarted" | "invocationSettled"> {
  const begin = store.beginInvocation?.bind(store);
  const settle = store.settleInvocation?.bind(store);
  if (begin === undefined || settle === undefined) return {};
  // The engine's invocation ids → the store's journal ids (one open at a
  // time; an abandoned one stays pending in the store).
  const journalIds = new Map<string, string>();
  return {
    invocationStarted(started): void {
      if (lease.lost) {
        throw new Error(`Session ${sessionId}: the writer lease was lost`);
      }
      const { id, purpose, provider, model, turnNumber } = started;
      journalIds.clear();
      journalIds.set(
        id,
        begin(
          sessionId,
          turnNumber === undefined
            ? { purpose, provider, model }
            : { purpose, provider, model, turnNumber },
        ),
      );
    },
    invocationSettled(settlement): void {
      const id = journalIds.get(settlement.id);
      if (id === undefined) return;
      journalIds.delete(settlement.id);
      settle(sessionId, { ...settlement, id });
    },
  };
}
