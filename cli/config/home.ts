/**
 * Where the user's Relavium folder is (DECISIONS.md 8): `RELAVIUM_HOME`
 * when set (must be absolute), else `~/.relavium`. It holds the global
 * `config.toml` and `history.db`.
 *
 * @module
 */
import { isAbsolute, join, normalize } from "node:path";
import { err, ok, type Result } from "../../schema/result.ts";
import { type CliFault, fault } from "../fault.ts";

/**
 * The user-level paths.
 *
 * @example Value
 * ```ts
 * import type { HomeLayout } from "./home.ts";
 * const h: HomeLayout = { userHome: "/home/u", relaviumDir: "/home/u/.relavium" };
 * ```
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
 *
 * @example RELAVIUM_HOME replaces ~/.relavium
 * ```ts
 * import { resolveHome } from "./home.ts";
 * import assert from "node:assert/strict";
 * const vars: Record<string, string> = { HOME: "/home/u", RELAVIUM_HOME: "/data/rel" };
 * const r = resolveHome((n) => vars[n]);
 * assert.deepEqual(r, { ok: true, value: { userHome: "/home/u", relaviumDir: "/data/rel" } });
 * assert.equal(resolveHome((n) => ({ RELAVIUM_HOME: "rel" } as Record<string, string>)[n]).ok, false);
 * ```
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
