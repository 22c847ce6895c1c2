/**
 * `chat-release <id> [--force]`: releases a session's writer lease that
 * no chat will release (a holder gone while its lease does not expire: a
 * heartbeat dated in the future, a damaged row, a host this one cannot
 * check). A lease that looks live (a live process of this host, or a
 * heartbeat from the last minute) is refused unless `--force`.
 *
 * @module
 */
import type { CliCommand } from "../args.ts";
import type { CommandEnv, CommandResult } from "../command_env.ts";
import { stripControl } from "../io/control.ts";
import { fault } from "../fault.ts";
import { listExistingHistory, openExistingHistory } from "../run/history.ts";
import type { DamagedSessionRow } from "../../store/sqlite_list.ts";
import { isProcessAlive, thisProcess } from "../../host/process_identity.ts";
import { LEASE_STALE_MS, leaseHolderText } from "../../store/lease_policy.ts";
import type { SessionLease } from "../../store/store.ts";
import { resolveSessionId } from "./session_ref.ts";

/** The holder and since when, for a line. */
function described(lease: SessionLease): string {
  const since = lease.acquiredAt === "" ? "" : `, since ${lease.acquiredAt}`;
  return stripControl(`${leaseHolderText(lease)}${since}`);
}

/** Why the lease looks live, or `undefined` when it does not. */
function liveness(lease: SessionLease, now: number): string | undefined {
  if (lease.damaged !== undefined) return undefined;
  const here = thisProcess().hostname;
  if (
    lease.pid !== undefined && here !== undefined && lease.hostname === here
  ) {
    const alive = isProcessAlive(lease.pid);
    if (alive === true) return `process ${lease.pid} of this host is running`;
    if (alive === false) return undefined;
  }
  const beat = Date.parse(lease.heartbeatAt);
  const age = now - beat;
  return age >= 0 && age <= LEASE_STALE_MS
    ? "its heartbeat is less than a minute old"
    : undefined;
}

/**
 * Runs `chat-release`.
 *
 * @param command The parsed command.
 * @param ctx The command context.
 * @returns 0 (released, or nothing to release), or a fault: `not_found`
 * for an unknown id, `session_busy` for a lease that looks live without
 * `--force`.
 */
export async function runChatRelease(
  command: Extract<CliCommand, { name: "chat-release" }>,
  ctx: CommandEnv,
): Promise<CommandResult> {
  const ref = await resolveSessionId(ctx, command.sessionId);
  if (!ref.ok) return ref.error;
  const sessionId = ref.value;
  const shown = stripControl(sessionId);
  const missing = fault("not_found", `No session with id ${shown}`);
  const damaged: DamagedSessionRow[] = [];
  const listed = await listExistingHistory(ctx, damaged);
  if (!listed.ok) return listed.error;
  const known = listed.value?.some((r) => r.id === sessionId) === true ||
    damaged.some((d) => d.id === sessionId);
  if (!known) return missing;
  const opened = await openExistingHistory(ctx);
  if (!opened.ok) return opened.error;
  const store = opened.value;
  if (store === undefined) return missing;
  let removed: SessionLease | undefined;
  try {
    if (store.readLease === undefined || store.clearLease === undefined) {
      return fault("internal", "This session store keeps no leases");
    }
    const lease = await store.readLease(sessionId);
    if (lease === undefined) {
      if (!ctx.globals.quiet) {
        ctx.io.stderr.write(
          `Session ${shown} has no writer lease: nothing to release\n`,
        );
      }
      return 0;
    }
    const live = liveness(lease, Date.now());
    if (live !== undefined && !command.force) {
      return fault(
        "session_busy",
        `Session ${shown} looks open in a live chat (${
          described(lease)
        }: ${live}): close that chat instead, or run 'relavium chat-release ${shown} --force' to release it anyway (that chat then can no longer write the session)`,
      );
    }
    removed = await store.clearLease(sessionId);
  } finally {
    await store.close();
  }
  if (removed === undefined) {
    ctx.io.stderr.write(`Session ${shown}'s lease was released meanwhile\n`);
    return 0;
  }
  if (ctx.globals.json) {
    ctx.io.stdout.write(
      `${JSON.stringify({ sessionId, released: removed })}\n`,
    );
  } else if (!ctx.globals.quiet) {
    ctx.io.stderr.write(
      `Released the writer lease of session ${shown} (${described(removed)})\n`,
    );
  }
  return 0;
}
