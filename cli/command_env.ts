/**
 * What every command gets from `main`: the io, the global flags, the
 * colour decision and the effective working directory.
 *
 * @module
 */
import { resolve } from "node:path";
import { err, ok, type Result } from "../schema/result.ts";
import type { GlobalOptions } from "./args.ts";
import { type CliFault, fault } from "./fault.ts";
import type { CliIo } from "./io/io.ts";

/**
 * The shared inputs of a command.
 *
 * @example Shape
 * ```ts
 * import type { CommandEnv } from "./command_env.ts";
 * type Json = CommandEnv["globals"]["json"];
 * ```
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
 *
 * @example Value
 * ```ts
 * import type { CommandResult } from "./command_env.ts";
 * const r: CommandResult = 0;
 * ```
 */
export type CommandResult = number | CliFault;

/**
 * Resolves `--cwd` against the process cwd and checks it is a directory.
 *
 * @param io The io (its `cwd`).
 * @param cwdFlag The `--cwd` value, if any.
 * @returns The absolute directory, or a `not_found` fault.
 *
 * @example Default is the process cwd
 * ```ts
 * import { effectiveCwd } from "./command_env.ts";
 * import { createBufferedIo } from "./io/io.ts";
 * import assert from "node:assert/strict";
 * const dir = await Deno.makeTempDir();
 * assert.deepEqual(await effectiveCwd(createBufferedIo({ cwd: dir }).io, undefined), { ok: true, value: dir });
 * assert.equal((await effectiveCwd(createBufferedIo({ cwd: dir }).io, "missing")).ok, false);
 * await Deno.remove(dir);
 * ```
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
