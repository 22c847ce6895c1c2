/**
 * What a session's event log says of its turn, folded event by event as
 * the log takes them: whether a turn runs (from its
 * `session:turn_started`, or any `agent:` event, to its `server:idle`)
 * and the approvals asked (`server:approval_requested`) and not yet
 * resolved (`server:approval_resolved`, or the turn's end). A server that
 * does not hold a session reads its state from here; the one place these
 * rules live.
 *
 * @module
 */
import { type PendingApproval, pendingApproval } from "./wire.ts";

/** The running turn and its waiting approvals, as a log shows them. */
export class TurnView {
  #running = false;
  readonly #pending = new Map<string, PendingApproval>();

  /** Whether the log's last turn has not reached its `server:idle`. */
  get running(): boolean {
    return this.#running;
  }

  /** The approvals asked and not yet resolved, oldest first. */
  get pending(): PendingApproval[] {
    return [...this.#pending.values()];
  }

  /**
   * Folds one logged event in.
   *
   * @param type The event's type.
   * @param data The event as JSON text (read for approvals only).
   */
  take(type: string, data: string): void {
    if (type === "session:turn_started") {
      this.#running = true;
      this.#pending.clear();
    } else if (type === "server:idle") {
      this.#running = false;
      this.#pending.clear();
    } else if (type.startsWith("agent:")) {
      // A turn whose start fell out of the log still shows it runs.
      this.#running = true;
    } else if (type === "server:approval_requested") {
      const approval = pendingApproval.safeParse(field(data, "approval"));
      if (approval.success) {
        this.#pending.set(approval.data.requestId, approval.data);
      }
    } else if (type === "server:approval_resolved") {
      const id = field(data, "requestId");
      if (typeof id === "string") this.#pending.delete(id);
    }
  }
}

function field(data: string, name: string): unknown {
  try {
    const parsed: unknown = JSON.parse(data);
    return typeof parsed === "object" && parsed !== null
      ? (parsed as Record<string, unknown>)[name]
      : undefined;
  } catch {
    return undefined;
  }
}
