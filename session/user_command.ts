/**
 * `AgentSession.runUserCommand`: a user's `!` command
 * through the registry's `run_command` policy, between turns. The
 * session supplies the turn policy (mode), the approval event, and the
 * admission right before the spawn: the effect identity is reserved
 * first (a latched persister refuses it ⇒ `failed` "session effect
 * identity could not be reserved"), then `preEgress`. No raw error
 * escapes; nothing enters the transcript (the grant never reaches the
 * model).
 *
 * @module
 */
import type { EgressDecision, TurnPolicy } from "../tools/registry.ts";
import type { UserCommandOutcome } from "../tools/registry.ts";
import type { SessionDeps } from "./deps.ts";
import { sessionError } from "./turn_errors.ts";

/** The failure message of a refused effect identity. */
export const EFFECT_IDENTITY_REFUSED =
  "session effect identity could not be reserved";

/**
 * What {@linkcode runUserCommandFlow} needs from the session.
 */
export interface UserCommandInput {
  /** The program. */
  command: string;
  /** Its arguments. */
  args: readonly string[];
  /** The session's deps (tools, emit, admission, effect keys). */
  deps: SessionDeps;
  /** The current turn policy (the mode), if any. */
  policy: TurnPolicy | undefined;
  /** Aborts the command (`abort()` / `cancel()`). */
  signal: AbortSignal;
  /** The agent ref, stamped as `nodeId` on the approval event. */
  nodeId: string;
  /** The next in-memory turn key when no persister reserves one. */
  nextLocalTurnKey(): number;
  /** Whether `cancel()` was called. */
  isCancelled(): boolean;
}

function failed(message: string): UserCommandOutcome {
  return { kind: "failed", message };
}

/** Copies a registry's answer, refusing malformed ones. */
function normalize(out: unknown): UserCommandOutcome {
  if (typeof out !== "object" || out === null) {
    return failed("The command gave no outcome");
  }
  const o = out as Record<string, unknown>;
  const str = (k: string): string | undefined =>
    typeof o[k] === "string" ? o[k] : undefined;
  switch (o["kind"]) {
    case "ran": {
      const exitCode = o["exitCode"];
      const stdout = str("stdout");
      const stderr = str("stderr");
      return typeof exitCode === "number" && Number.isInteger(exitCode) &&
          stdout !== undefined && stderr !== undefined
        ? { kind: "ran", exitCode, stdout, stderr }
        : failed("The command gave no outcome");
    }
    case "denied":
      return {
        kind: "denied",
        allowlist: o["allowlist"] === true,
        message: str("message") ?? "The command was denied",
      };
    case "failed":
      return failed(str("message") ?? "The command failed");
    case "cancelled":
      return { kind: "cancelled" };
    default:
      return failed("The command gave no outcome");
  }
}

/**
 * Runs one user command. The caller holds the session in `running`.
 *
 * @param input Command, deps, policy, signal and session callbacks.
 * @returns The outcome; never throws.
 */
export async function runUserCommandFlow(
  input: UserCommandInput,
): Promise<UserCommandOutcome> {
  const { deps, signal } = input;
  const run = deps.tools?.runUserCommand;
  if (run === undefined) {
    return failed("User commands are not available in this session");
  }
  const cancelled = (): boolean => input.isCancelled() || signal.aborted;
  const admit = (): EgressDecision => {
    try {
      const key = deps.reserveEffectTurnKey?.() ?? input.nextLocalTurnKey();
      if (!Number.isSafeInteger(key) || key < 1) throw new RangeError("key");
    } catch {
      return {
        allow: false,
        error: sessionError("internal", EFFECT_IDENTITY_REFUSED),
      };
    }
    return deps.preEgress?.({ kind: "tool", toolId: "run_command" }) ??
      { allow: true };
  };
  try {
    const out = await run.call(deps.tools, {
      command: input.command,
      args: [...input.args],
    }, {
      signal,
      ...(input.policy === undefined ? {} : { policy: input.policy }),
      interactive: deps.interactive ?? false,
      emitApproval: (req) => {
        if (input.isCancelled()) return;
        deps.emit({
          type: "agent:approval_requested",
          nodeId: input.nodeId,
          toolId: req.toolId,
          action: req.action,
          preview: req.preview,
        });
      },
      admit,
    });
    return cancelled() ? { kind: "cancelled" } : normalize(out);
  } catch {
    return cancelled()
      ? { kind: "cancelled" }
      : failed("The command failed unexpectedly");
  }
}
