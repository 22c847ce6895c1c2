/**
 * Where the user's Relavium folder is: `RELAVIUM_HOME`
 * when set (must be absolute), else `~/.relavium`. It holds the global
 * `config.toml`, `history.db` and the chat's input history `chat_history`.
 *
 * @module
 */
import { isAbsolute, join, normalize } from "../../schema/paths.ts";
import { err, ok, type Result } from "../../schema/result.ts";
import { type CliFault, fault } from "../fault.ts";

/**
 * The user-level paths.
 */
export interface HomeLayout {
  /** `$HOME` (or `%USERPROFILE%`), when known: project discovery stops there. */
  userHome?: string;
  /** The Relavium folder; absent when neither `RELAVIUM_HOME` nor a home is known. */
  relaviumDir?: string;
}

/**
 * Resolves the user-level folders from the environment.
 *
 * @param env Reads environment variables.
 * @returns The layout, or an `invalid_config` fault when `RELAVIUM_HOME` is
 * relative.
 */
export function resolveHome(
  env: (name: string) => string | undefined,
): Result<HomeLayout, CliFault> {
  const homeVar = env("HOME") || env("USERPROFILE");
  const userHome =
    homeVar !== undefined && homeVar !== "" && isAbsolute(homeVar)
      ? normalize(homeVar)
      : undefined;
  const custom = env("RELAVIUM_HOME");
  if (custom !== undefined && custom !== "") {
    if (!isAbsolute(custom)) {
      return err(fault(
        "invalid_config",
        `RELAVIUM_HOME must be an absolute path (got "${custom}")`,
      ));
    }
    return ok({
      ...(userHome === undefined ? {} : { userHome }),
      relaviumDir: normalize(custom),
    });
  }
  if (userHome === undefined) return ok({});
  return ok({ userHome, relaviumDir: join(userHome, ".relavium") });
}

/**
 * The interactive chat's input history file in the Relavium folder.
 *
 * @param layout The user-level paths.
 * @returns `<relavium dir>/chat_history`, or `undefined` without one.
 */
export function chatHistoryPath(layout: HomeLayout): string | undefined {
  return layout.relaviumDir === undefined
    ? undefined
    : join(layout.relaviumDir, "chat_history");
}
