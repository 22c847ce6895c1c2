/**
 * Warnings of the least-privilege printer: broad Deno
 * grants, and allowlisted interpreters, shells and launchers, which turn
 * `--allow-run` into full access.
 *
 * @module
 */
import type { CommandAllowlist } from "./command_allowlist.ts";
import { firstToken } from "./_command.ts";

/** Programs that run arbitrary code given the right arguments. */
const INTERPRETERS: ReadonlySet<string> = new Set([
  "sh",
  "bash",
  "zsh",
  "fish",
  "dash",
  "ksh",
  "csh",
  "tcsh",
  "pwsh",
  "powershell",
  "cmd",
  "python",
  "python3",
  "node",
  "deno",
  "bun",
  "ruby",
  "perl",
  "php",
  "lua",
  "env",
  "xargs",
  "sudo",
  "doas",
  "npx",
  "bunx",
]);

function programBase(program: string): string {
  return program.split(/[\\/]/).pop()?.toLowerCase().replace(/\.exe$/, "") ??
    program;
}

/**
 * Warnings about the command allowlist itself: an interpreter, shell or
 * launcher (`sh`, `python`, `node`, `deno`, `env`, `xargs`, …) as the
 * program of an entry or glob grants full access (`--allow-run` children
 * are not sandboxed); a glob whose first token is not literal cannot be
 * turned into an `--allow-run` value.
 *
 * @param allowlist `allowedCommands` and `allowedCommandGlobs`.
 * @returns Human-readable warnings, one per program or glob.
 */
export function allowlistWarnings(allowlist: CommandAllowlist): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const entries = [
    ...(allowlist.allowedCommands ?? []).map((c) => ({ c, glob: false })),
    ...(allowlist.allowedCommandGlobs ?? []).map((c) => ({ c, glob: true })),
  ];
  for (const { c, glob } of entries) {
    const first = firstToken(c);
    if (first === undefined) continue;
    if (glob && (first.includes("*") || first.includes("?"))) {
      out.push(
        `The command glob ${
          JSON.stringify(c)
        } has no literal program: grant its --allow-run by hand`,
      );
      continue;
    }
    const base = programBase(first);
    if (INTERPRETERS.has(base) && !seen.has(base)) {
      seen.add(base);
      out.push(
        `Allowlisting ${base} grants full access: it runs arbitrary code and child processes are not sandboxed`,
      );
    }
  }
  return out;
}

/**
 * Warnings for broad grants (`-A` or unscoped `--allow-*`): the app jail
 * still holds, but Deno no longer backs it up; interpreters and shells in
 * the run grant are full access.
 *
 * @param query The permission query.
 * @param runPrograms Programs granted to run (to flag interpreters).
 * @returns Human-readable warnings.
 */
export function broadGrantWarnings(
  query: (
    descriptor: { name: "read" | "write" | "run" | "net" | "env" },
  ) => string,
  runPrograms: readonly string[] = [],
): string[] {
  const out: string[] = [];
  for (const name of ["read", "write", "run", "net", "env"] as const) {
    if (query({ name }) === "granted") {
      out.push(
        `Running with unscoped --allow-${name}: the application jail still applies, Deno no longer backs it up`,
      );
    }
  }
  for (const p of runPrograms) {
    const base = programBase(p);
    if (INTERPRETERS.has(base)) {
      out.push(
        `Allowing ${base} to run grants full access: child processes are not sandboxed`,
      );
    }
  }
  return out;
}
