/**
 * Chat modes: a `TurnPolicy` per mode and a
 * small controller for `/mode`, the in-memory `always` cache and resets.
 * Modes only narrow: the jail, floors and allowlists apply in every mode.
 *
 * | Mode | Advertised | Governed action |
 * |---|---|---|
 * | `ask` | read-only only | denied "not allowed in ask mode (read-only)" |
 * | `plan` | read-only only | denied |
 * | `accept-edits` | all granted | asks the approver (`always` cached) |
 * | `auto` | all granted | approved; a protected-path write asks |
 *
 * Without an interactive approver, `ask`/`plan` keep their mode denial,
 * `accept-edits` denies "interactive approval is unavailable", and `auto`
 * approves what the guardrails allowed except a protected-path write.
 *
 * @module
 */
import type {
  ApprovalDecision,
  ApprovalRequest,
  PolicyVerdict,
  TurnPolicy,
} from "./registry.ts";

/**
 * A chat mode.
 */
export type ChatMode = "ask" | "plan" | "accept-edits" | "auto";

/**
 * Every mode with its one-line description (for a bare `/mode`).
 */
export const CHAT_MODES: readonly { mode: ChatMode; description: string }[] =
  Object.freeze([
    {
      mode: "ask",
      description: "read-only tools; governed actions are refused",
    },
    {
      mode: "plan",
      description:
        "read-only tools while planning; governed actions are refused",
    },
    {
      mode: "accept-edits",
      description: "every granted tool; each governed action asks first",
    },
    {
      mode: "auto",
      description:
        "every granted tool; governed actions run (protected writes still ask)",
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

const BUILTIN_READ_ONLY: ReadonlySet<string> = new Set([
  "read_file",
  "list_directory",
  "git_status",
]);

function verdictFor(
  mode: ChatMode,
  check: ApprovalRequest,
  canAsk: boolean,
  cache: ReadonlySet<string>,
): PolicyVerdict | undefined {
  switch (mode) {
    case "ask":
    case "plan":
      return {
        approve: false,
        reason: `${check.toolId} is not allowed in ${mode} mode (read-only)`,
      };
    case "accept-edits":
      if (!canAsk) {
        return {
          approve: false,
          reason: "interactive approval is unavailable",
        };
      }
      return check.cacheable && cache.has(check.toolId)
        ? { approve: true }
        : undefined;
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
      advertise: (toolId) =>
        m === "ask" || m === "plan" ? isReadOnly(toolId) : true,
      decide: (check) => verdictFor(m, check, canAsk, cache),
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
      if (next !== mode) bound = undefined;
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
