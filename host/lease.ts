/**
 * The host's side of one writer per session and of usage coverage: the
 * session's lease, held from open or resume until close with a heartbeat,
 * and the engine hooks that journal each provider invocation in the store.
 *
 * @module
 */
import type { SessionHooks } from "../session/deps.ts";
import type { SessionLease, SessionStore } from "../store/store.ts";
import {
  LEASE_HEARTBEAT_MS,
  LEASE_STALE_MS,
  leaseHolderText,
} from "../store/lease_policy.ts";
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
  /**
   * Reads the stored lease: `undefined` while this process holds it, else
   * the message naming who holds it now and how to go on (this process
   * must then send and write nothing more).
   */
  check(): string | undefined;
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
  runtime: Pick<SessionRuntime, "ids" | "process" | "clock">,
):
  | { ok: true; lease: HeldLease }
  | { ok: false; heldBy: SessionLease; message: string } {
  if (
    store.acquireLease === undefined || store.renewLease === undefined ||
    store.releaseLease === undefined
  ) {
    const none: HeldLease = {
      lost: false,
      holderId: undefined,
      check: () => undefined,
      release() {},
    };
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
  if (!answer.ok) {
    const message = leaseHeldMessage(
      sessionId,
      answer.heldBy,
      runtime.clock.now(),
    );
    return { ok: false, heldBy: answer.heldBy, message };
  }
  const renew = store.renewLease.bind(store);
  const releaseLease = store.releaseLease.bind(store);
  const readLease = store.readLease?.bind(store);
  let lost = false;
  let lostTo: string | undefined;
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
      check(): string | undefined {
        if (lostTo !== undefined) return lostTo;
        if (readLease === undefined) {
          return lost ? leaseLostMessage(sessionId, undefined) : undefined;
        }
        let current: SessionLease | undefined;
        try {
          current = readLease(sessionId);
        } catch {
          // A read that fails here fails the write that follows, named.
          return undefined;
        }
        if (current?.holderId === holderId) {
          return undefined;
        }
        lost = true;
        clearInterval(timer);
        lostTo = leaseLostMessage(sessionId, current);
        return lostTo;
      },
      release(): void {
        if (released) return;
        released = true;
        clearInterval(timer);
        if (!lost) releaseLease(sessionId, holderId);
      },
    },
  };
}

/** The holder and since when, for a message. */
function holderSince(lease: SessionLease): string {
  return lease.acquiredAt === ""
    ? leaseHolderText(lease)
    : `${leaseHolderText(lease)}, since ${lease.acquiredAt}`;
}

/**
 * The message of a refused lease: who holds the session (process, host,
 * since when) and how to go on. A damaged lease row, or one whose
 * heartbeat is dated in the future (it never expires on its own), is
 * released by hand with `chat-release`.
 *
 * @param sessionId The session.
 * @param heldBy The live lease.
 * @param now Epoch ms (tells a heartbeat dated in the future); absent ⇒
 * not judged.
 * @returns The message.
 */
export function leaseHeldMessage(
  sessionId: string,
  heldBy: SessionLease,
  now?: number,
): string {
  const release = `relavium chat-release ${sessionId}`;
  if (heldBy.damaged !== undefined) {
    return `Session ${sessionId} is held by ${
      holderSince(heldBy)
    }: no writer can be judged from it; if no chat has the session open, run '${release}' to clear it, then try again`;
  }
  const beat = Date.parse(heldBy.heartbeatAt);
  if (now !== undefined && beat - now > LEASE_STALE_MS) {
    return `Session ${sessionId} is open in another writer (${
      holderSince(heldBy)
    }) whose heartbeat is dated in the future (${heldBy.heartbeatAt}), so its lease never expires on its own: close that chat first, or, if it is gone, run '${release}', then try again`;
  }
  return `Session ${sessionId} is open in another writer (${
    holderSince(heldBy)
  }): close that chat first, or, if it is gone, wait a minute for its lease to expire and try again`;
}

/**
 * The message of a lease this process held and lost: who holds the
 * session now (process, host, since when) and how to go on.
 *
 * @param sessionId The session.
 * @param current The lease now stored, if any.
 * @returns The message.
 */
export function leaseLostMessage(
  sessionId: string,
  current: SessionLease | undefined,
): string {
  const now = current === undefined
    ? "was released by hand"
    : `was taken over by ${holderSince(current)}`;
  return `Session ${sessionId}: this chat's writer lease ${now}; nothing more is sent or written here: continue in that writer, or close this chat and run 'relavium chat-resume ${sessionId}'`;
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
