/**
 * The host's side of one writer per session and of usage coverage: the
 * session's lease, held from open or resume until close with a heartbeat,
 * and the engine hooks that journal each provider invocation in the store.
 *
 * @module
 */
import type { SessionHooks } from "../session/deps.ts";
import { HookRefusal, sessionError } from "../session/turn_errors.ts";
import {
  type AsyncSessionStore,
  isAsyncStore,
  type SessionLease,
  type SessionStore,
} from "../store/store.ts";
import {
  LEASE_HEARTBEAT_MS,
  LEASE_STALE_MS,
  leaseHolderText,
} from "../store/lease_policy.ts";
import type { SessionRuntime } from "./runtime.ts";
import type { TurnWriter } from "./turn_writer.ts";

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
   *
   * @param journaled A provider call that {@linkcode coverageHooks}
   * journals before it leaves: on a store that fences that write with this
   * lease (see {@linkcode FencingStore}), the write checks the lease in
   * its own transaction, so nothing is read here.
   */
  check(journaled?: boolean): string | undefined;
  /**
   * Stops the heartbeat and releases it (idempotent); on an asynchronous
   * store the promise settles once the release is written (it never
   * rejects: a lease left behind goes stale).
   */
  release(): void | Promise<void>;
}

/**
 * A store handle whose every write on a session, `beginInvocation`
 * included, first checks inside its own transaction that the stored lease
 * is still the holder's it names, and throws when it is not (the SQLite
 * store). Not part of `SessionStore`: a store without it is read before
 * each call.
 */
interface FencingStore {
  /** The holder fencing this handle's writes on the session (no I/O). */
  fencedHolder(sessionId: string): string | undefined;
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
    return { ok: true, lease: NO_LEASE };
  }
  const claim = claimOf(runtime);
  const { holderId } = claim;
  const answer = store.acquireLease(sessionId, claim);
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
  const fencedHolder = (store as Partial<FencingStore>).fencedHolder?.bind(
    store,
  );
  const state = { lost: false };
  let lostTo: string | undefined;
  let released = false;
  const timer = heartbeat(() => renew(sessionId, holderId), state);
  return {
    ok: true,
    lease: {
      get lost(): boolean {
        return state.lost;
      },
      holderId,
      check(journaled = false): string | undefined {
        if (lostTo !== undefined) return lostTo;
        if (
          journaled && !state.lost && fencedHolder?.(sessionId) === holderId
        ) {
          // The journal write that follows checks it before the call leaves.
          return undefined;
        }
        if (readLease === undefined) {
          return state.lost
            ? leaseLostMessage(sessionId, undefined)
            : undefined;
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
        state.lost = true;
        clearInterval(timer);
        lostTo = leaseLostMessage(sessionId, current);
        return lostTo;
      },
      release(): void {
        if (released) return;
        released = true;
        clearInterval(timer);
        if (!state.lost) releaseLease(sessionId, holderId);
      },
    },
  };
}

/** The claim of this process: a fresh holder id and who it is. */
function claimOf(
  runtime: Pick<SessionRuntime, "ids" | "process">,
): NonNullable<Parameters<NonNullable<SessionStore["acquireLease"]>>[1]> {
  const me = runtime.process;
  return {
    holderId: runtime.ids(),
    ...(me === undefined ? {} : { pid: me.pid }),
    ...(me?.hostname === undefined ? {} : { hostname: me.hostname }),
    ...(me?.isAlive === undefined ? {} : { isAlive: me.isAlive }),
  };
}

/**
 * {@linkcode holdLease} on an asynchronous store: the lease is taken
 * before the session opens; the heartbeat renews it in the background.
 * Every write the store makes is fenced by the lease it took, so a lost
 * lease shows as a refused write (the writer latches) or a refused
 * heartbeat; `check` reads nothing.
 *
 * @param store The session's store.
 * @param sessionId The session.
 * @param runtime The ids and this process's identity.
 * @returns The held lease, or the live lease another writer holds.
 */
export async function holdLeaseAsync(
  store: AsyncSessionStore,
  sessionId: string,
  runtime: Pick<SessionRuntime, "ids" | "process" | "clock">,
): Promise<
  | { ok: true; lease: HeldLease }
  | { ok: false; heldBy: SessionLease; message: string }
> {
  const { acquireLease, renewLease, releaseLease } = store;
  if (
    acquireLease === undefined || renewLease === undefined ||
    releaseLease === undefined
  ) {
    return { ok: true, lease: NO_LEASE };
  }
  const claim = claimOf(runtime);
  const { holderId } = claim;
  const answer = await acquireLease.call(store, sessionId, claim);
  if (!answer.ok) {
    const now = runtime.clock.now();
    const message = leaseHeldMessage(sessionId, answer.heldBy, now);
    return { ok: false, heldBy: answer.heldBy, message };
  }
  const state = { lost: false };
  let released = false;
  const timer = heartbeat(
    () => renewLease.call(store, sessionId, holderId),
    state,
  );
  return {
    ok: true,
    lease: {
      get lost(): boolean {
        return state.lost;
      },
      holderId,
      check: () =>
        state.lost ? leaseLostMessage(sessionId, undefined) : undefined,
      async release(): Promise<void> {
        if (released) return;
        released = true;
        clearInterval(timer);
        if (state.lost) return;
        try {
          await releaseLease.call(store, sessionId, holderId);
        } catch {
          // Left to go stale: the next claimant takes it over.
        }
      },
    },
  };
}

/** The lease of a store that keeps none: never lost, nothing to release. */
const NO_LEASE: HeldLease = {
  lost: false,
  holderId: undefined,
  check: () => undefined,
  release() {},
};

/**
 * Renews the lease every {@linkcode LEASE_HEARTBEAT_MS} (an unreferenced
 * timer: it never keeps the process alive) until a renewal is refused or
 * fails, which sets `state.lost`.
 */
function heartbeat(
  renew: () => boolean | Promise<boolean>,
  state: { lost: boolean },
): ReturnType<typeof setInterval> {
  const timer = setInterval(async () => {
    try {
      if (!await renew()) state.lost = true;
    } catch {
      // A closed or failing store: the next write reports it.
      state.lost = true;
    }
    if (state.lost) clearInterval(timer);
  }, LEASE_HEARTBEAT_MS);
  Deno.unrefTimer(timer);
  return timer;
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
 * @param writer The session's writer (an asynchronous store's journal
 * writes queue on it: the request waits for them, see `host.ts`).
 * @returns The hooks to add.
 */
export function coverageHooks(
  store: SessionStore | AsyncSessionStore,
  sessionId: string,
  lease: HeldLease,
  writer: TurnWriter,
): Pick<SessionHooks, "invocationStarted" | "invocationSettled"> {
  if (isAsyncStore(store)) return queuedCoverage(store, sessionId, writer);
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
      let journalId: string;
      try {
        journalId = begin(
          sessionId,
          turnNumber === undefined
            ? { purpose, provider, model }
            : { purpose, provider, model, turnNumber },
        );
      } catch (error) {
        // A fenced journal write refused a lost lease: named as `check`
        // names it (it reads the lease now).
        const lost = lease.check();
        if (lost === undefined) throw error;
        throw new HookRefusal(sessionError("internal", lost));
      }
      journalIds.set(id, journalId);
    },
    invocationSettled(settlement): void {
      const id = journalIds.get(settlement.id);
      if (id === undefined) return;
      journalIds.delete(settlement.id);
      settle(sessionId, { ...settlement, id });
    },
  };
}

/**
 * The journal hooks of an asynchronous store: the pending row and the
 * settlement queue on the writer, in order with the turn's writes; the
 * request leaves only once they settled (the host's egress barrier), and
 * a failed one latches the writer, so nothing leaves unjournaled.
 */
function queuedCoverage(
  store: AsyncSessionStore,
  sessionId: string,
  writer: TurnWriter,
): Pick<SessionHooks, "invocationStarted" | "invocationSettled"> {
  const { beginInvocation: begin, settleInvocation: settle } = store;
  if (begin === undefined || settle === undefined) return {};
  const journalIds = new Map<string, Promise<string>>();
  return {
    invocationStarted(started): void {
      if (writer.latched) {
        throw new Error(`Session ${sessionId}: the store failed to write`);
      }
      const { id, purpose, provider, model, turnNumber } = started;
      const invocation = turnNumber === undefined
        ? { purpose, provider, model }
        : { purpose, provider, model, turnNumber };
      journalIds.clear();
      const journalId = Promise.withResolvers<string>();
      // Never left unhandled: a failed begin latches the writer.
      journalId.promise.catch(() => {});
      journalIds.set(id, journalId.promise);
      writer.write(async () => {
        try {
          journalId.resolve(
            await begin.call(store, sessionId, invocation),
          );
        } catch (error) {
          journalId.reject(error);
          throw error;
        }
      });
    },
    invocationSettled(settlement): void {
      const pending = journalIds.get(settlement.id);
      if (pending === undefined) return;
      journalIds.delete(settlement.id);
      writer.write(async () => {
        const id = await pending;
        await settle.call(store, sessionId, { ...settlement, id });
      });
    },
  };
}
