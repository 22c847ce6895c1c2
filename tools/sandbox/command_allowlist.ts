/**
 * The command allowlist: the target is
 * `[command, ...args].join(" ")`; it is allowed iff it equals an
 * `allowedCommands` entry or fully matches an `allowedCommandGlobs`
 * pattern (`*` any run including empty, `?` one character, everything
 * else literal). Empty or absent lists deny everything. Matching is the
 * linear-space wildcard matcher of `glob.ts` (one backtrack point,
 * `O(pattern × target)` worst case, no RegExp, no exponential blow-up).
 *
 * An exact entry is also compared token by token when the argv is known:
 * `["git", "status --short"]` joins to `git status --short` but is not the
 * tokenised command the entry names, so only a glob can allow it.
 *
 * @module
 */
import { matchWildcard } from "./glob.ts";

/**
 * The allowlists, as configured (`[chat].allowed_commands`,
 * `[chat].allowed_command_globs`).
 */
export interface CommandAllowlist {
  /** Exact command lines. */
  allowedCommands?: readonly string[];
  /** Wildcard patterns over the whole command line. */
  allowedCommandGlobs?: readonly string[];
}

/**
 * The allowlist target of a call.
 *
 * @param command Program name or path.
 * @param args Arguments.
 * @returns `[command, ...args].join(" ")`.
 */
export function commandLine(command: string, args: readonly string[]): string {
  return [command, ...args].join(" ");
}

/**
 * Whether a command line is allowed.
 *
 * @param target `[command, ...args].join(" ")`.
 * @param allowlist Exact entries and globs.
 * @param argv The argv behind `target`, when known (token check of exact
 *   entries).
 * @returns `true` when allowed.
 */
export function isCommandAllowed(
  target: string,
  allowlist: CommandAllowlist,
  argv?: readonly string[],
): boolean {
  const tokenised = argv === undefined ||
    argv.every((t) => t !== "" && !/\s/.test(t));
  if (tokenised && (allowlist.allowedCommands ?? []).includes(target)) {
    return true;
  }
  return (allowlist.allowedCommandGlobs ?? []).some((g) =>
    matchWildcard(g, target)
  );
}
