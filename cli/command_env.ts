/**
 * What every command gets from `main`: the io, the global flags, the
 * colour decision and the effective working directory.
 *
 * @module
 */
import { resolve } from "../schema/paths.ts";
import { err, ok, type Result } from "../schema/result.ts";
import type { GlobalOptions } from "./args.ts";
import { type CliFault, fault } from "./fault.ts";
import type { CliIo } from "./io/io.ts";

/**
 * The shared inputs of a command.
 */
export interface CommandEnv {
  /** The world. */
  io: CliIo;
  /** Global flags. */
  globals: GlobalOptions;
  /** Whether human output may use colour. */
  color: boolean;
  /** The effective working directory (`--cwd` resolved, absolute). */
  cwd: string;
}

/**
 * What a command returns: an exit code, or a fault for `main` to print.
 */
export type CommandResult = number | CliFault;

/**
 * Resolves `--cwd` against the process cwd and checks it is a directory.
 *
 * @param io The io (its `cwd`).
 * @param cwdFlag The `--cwd` value, if any.
 * @returns The absolute directory, or a `not_found` fault.
 */
export async function effectiveCwd(
  io: CliIo,
  cwdFlag: string | undefined,
): Promise<Result<string, CliFault>> {
  if (cwdFlag === undefined) return ok(io.cwd);
  const dir = resolve(io.cwd, cwdFlag);
  try {
    if ((await Deno.stat(dir)).isDirectory) return ok(dir);
  } catch {
    // reported below
  }
  return err(fault("not_found", `No such directory (--cwd): ${dir}`));
}

/**
 * What the config loader needs from a command's context: the effective
 * working directory, the environment and `--config`.
 *
 * @param ctx The command context.
 * @returns The config request.
 */
export function configRequestOf(ctx: CommandEnv): {
  cwd: string;
  env(name: string): string | undefined;
  configFlag?: string;
} {
  return {
    cwd: ctx.cwd,
    env: (n: string) => ctx.io.env(n),
    ...(ctx.globals.config === undefined
      ? {}
      : { configFlag: ctx.globals.config }),
  };
}
