/**
 * Chat modes: a `TurnPolicy` per mode and a
 * small controller for `/mode`, the in-memory `always` cache and resets.
 * Modes only narrow: the jail, floors and allowlists apply in every mode.
 * Read-only tools run in every mode.
 *
 * | Mode | Advertised | A write in the jail | Other governed actions |
 * |---|---|---|---|
 * | `ask` | all granted | asks | asks |
 * | `plan` | read-only only | hidden (denied) | hidden (denied) |
 * | `accept-edits` | all granted | runs | asks |
 * | `auto` | all granted | runs | runs |
 *
 * A protected-path write asks in every mode but `plan`. Without an
 * interactive approver (no terminal, `--json`, one-shot) whatever would
 * ask is denied `no_approval_hook` with a reason saying so, so `ask` refuses every governed
 * action, `accept-edits` runs only writes, and `auto` runs what the
 * guardrails allow except a protected-path write. `plan` also adds
 * {@linkcode PLAN_INSTRUCTION} to the system prompt of its turns. An
 * `always` answer is cached per tool id until the mode changes.
 *
 * @module
 */
import type { SessionSettings } from "../session/deps.ts";
import type {
  ApprovalDecision,
  ApprovalRequest,
  PolicyVerdict,
  TurnPolicy,
} from "./registry.ts";

/**
 * A chat mode: the names a session's settings declare.
 */
export type ChatMode = NonNullable<SessionSettings["mode"]>;

/**
 * Every mode with its one-line description (for a bare `/mode`).
 */
export const CHAT_MODES: readonly { mode: ChatMode; description: string }[] =
  Object.freeze([
    {
      mode: "ask",
      description:
        "read-only tools run; every write, command and web request asks first (refused without a terminal)",
    },
    {
      mode: "plan",
      description:
        "read-only tools only, to plan before acting: writes, commands and web requests are hidden",
    },
    {
      mode: "accept-edits",
      description:
        "read-only tools and writes inside the project run unasked (protected paths ask); commands and web requests ask",
    },
    {
      mode: "auto",
      description:
        "whatever the jail and allowlists allow runs unasked (protected writes and each git commit still ask)",
    },
  ]);

/**
 * Options of {@linkcode createModePolicy}.
 */
export interface ModePolicyOptions {
  /** Initial mode (default `ask`). */
  mode?: ChatMode;
  /** Asks a person (the CLI's `[y] once [a] always [n] no` prompt). */
  approver?: (request: ApprovalRequest) => Promise<ApprovalDecision>;
  /** Whether a person can answer (false: no TTY, `--json`, one-shot). */
  interactive: boolean;
  /** Read-only test per tool id (use the registry's `isReadOnly`). */
  isReadOnly?: (toolId: string) => boolean;
}

/**
 * The mode controller. `policy` is bound to the mode current when it is
 * read (the session snapshots it at turn start): after `/mode`, hand the
 * new `policy` to `setTurnPolicy`. Setting an unknown mode throws a
 * `RangeError`.
 */
export interface ModeController {
  /** The current mode; setting it changes the next `policy`. */
  mode: ChatMode;
  /** The turn policy for the current mode (a new object per mode). */
  readonly policy: TurnPolicy;
  /** Forgets every `always` answer. */
  resetCache(): void;
  /** Resume, reseat, `/clear`: cache cleared and mode back to `ask`. */
  reset(): void;
}

/**
 * The planning instruction `plan` adds to the system prompt of its turns.
 */
export const PLAN_INSTRUCTION: string =
  "You are in plan mode: you can read files and list folders, but you cannot write files, run commands or make web requests. Investigate with the read-only tools, then answer with a concrete, numbered plan of the changes you would make (files, commands, order). Do not claim to have changed anything.";

const BUILTIN_READ_ONLY: ReadonlySet<string> = new Set([
  "read_file",
  "list_directory",
  "git_status",
]);

/** Whether a person is asked (`undefined`) or, with nobody to ask, why not. */
function askOrDeny(
  mode: ChatMode,
  check: ApprovalRequest,
  canAsk: boolean,
  cache: ReadonlySet<string>,
): PolicyVerdict | undefined {
  if (!canAsk) {
    return {
      approve: false,
      reason:
        `${check.toolId} needs approval in ${mode} mode and there is no terminal to ask on`,
      noApprover: true,
    };
  }
  return check.cacheable && cache.has(check.toolId)
    ? { approve: true }
    : undefined;
}

function verdictFor(
  mode: ChatMode,
  check: ApprovalRequest,
  canAsk: boolean,
  cache: ReadonlySet<string>,
): PolicyVerdict | undefined {
  switch (mode) {
    case "ask":
      return askOrDeny(mode, check, canAsk, cache);
    case "plan":
      return {
        approve: false,
        reason: `${check.toolId} is not allowed in plan mode (read-only)`,
      };
    case "accept-edits":
      // A protected write asks anyway: the pipeline never lets a verdict
      // approve it.
      if (check.action === "fs_write" && !check.protectedPath) {
        return { approve: true };
      }
      return askOrDeny(mode, check, canAsk, cache);
    case "auto":
      if (!check.protectedPath) return { approve: true };
      return canAsk ? undefined : {
        approve: false,
        reason: "a protected-path write needs interactive approval",
      };
    default: {
      const never: never = mode;
      return never;
    }
  }
}

/**
 * Builds the mode policy and its controller.
 *
 * @param options Initial mode, approver, interactivity, read-only test.
 * @returns The controller.
 */
export function createModePolicy(options: ModePolicyOptions): ModeController {
  const cache = new Set<string>();
  const isReadOnly = options.isReadOnly ??
    ((id: string): boolean => BUILTIN_READ_ONLY.has(id));
  const ask = options.interactive ? options.approver : undefined;
  const canAsk = ask !== undefined;
  let mode: ChatMode = options.mode ?? "ask";
  let bound: TurnPolicy | undefined;

  function bind(m: ChatMode): TurnPolicy {
    const policy: TurnPolicy = {
      advertise: (toolId) => m === "plan" ? isReadOnly(toolId) : true,
      decide: (check) => verdictFor(m, check, canAsk, cache),
      ...(m === "plan" ? { instruction: PLAN_INSTRUCTION } : {}),
    };
    if (ask !== undefined) {
      policy.confirm = async (request): Promise<ApprovalDecision> => {
        const decision = await ask(request);
        if (decision === "always" && request.cacheable) {
          cache.add(request.toolId);
        }
        return decision;
      };
    }
    return policy;
  }

  return {
    get mode(): ChatMode {
      return mode;
    },
    set mode(next: ChatMode) {
      if (!CHAT_MODES.some((m) => m.mode === next)) {
        throw new RangeError(
          `Cannot set mode: unknown mode ${JSON.stringify(next)}`,
        );
      }
      if (next !== mode) {
        bound = undefined;
        cache.clear();
      }
      mode = next;
    },
    get policy(): TurnPolicy {
      bound ??= bind(mode);
      return bound;
    },
    resetCache(): void {
      cache.clear();
    },
    reset(): void {
      cache.clear();
      mode = "ask";
      bound = undefined;
    },
  };
}
