/**
 * The filesystem jail, pure half: scope tiers and the
 * lexical check that runs before any host call. The per-operation resolver
 * that touches the host is `fs_access.ts`.
 *
 * The write side (`write_jail.ts`, used by `write_file`) realpaths the
 * deepest existing ancestor and checks it before any `mkdir`, re-checks
 * the parent after creating dirs, refuses a symlink at the final
 * component, and applies the protected floor to the real target;
 * {@linkcode checkLexicalPath} reports `protectedPath` for the write
 * intent (the pipeline's approval step uses it).
 *
 * @module
 */
import type { FsScopeTier } from "../../schema/context.ts";
import { err, ok, type Result } from "../../schema/result.ts";
import {
  absolutize,
  isAbsolutePath,
  isDriveRelative,
  isUncPath,
  isWithin,
  type PathOs,
} from "./_path.ts";
import { REASONS, type ToolFailure } from "../failure.ts";
import { isProtectedPath, isSensitivePath } from "./floors.ts";

/**
 * Where the tools may work (the CLI builds it from `SessionContext` and
 * config).
 */
export interface FsScopeConfig {
  /** Absolute workspace dir; relative tool paths resolve against it. */
  workingDir: string;
  /** Requested tier; `full` is clamped to `project`. */
  fsScopeTier: FsScopeTier;
  /** Absolute extra roots, used by the `project` tier only. */
  extraRoots?: readonly string[];
  /** Absolute config/data/store dirs of this tool: on both floors. */
  ownDirs?: readonly string[];
}

/**
 * The effective scope: tier after clamping, roots (workspace first) and
 * notices for the user.
 */
export interface ScopePlan {
  /** Effective tier: there is no unjailed tier in this release. */
  readonly tier: "sandboxed" | "project";
  /** Lexical absolute roots; `roots[0]` is the workspace. */
  readonly roots: readonly string[];
  /** Own config/data dirs (both floors). */
  readonly ownDirs: readonly string[];
  /** Path flavour. */
  readonly os: "posix" | "windows";
  /** Notices to show once (e.g. the `full` clamp). */
  readonly notices: readonly string[];
}

function requireAbsolute(path: string, what: string, os: PathOs): string {
  if (path === "" || isUncPath(path, os) || !isAbsolutePath(path, os)) {
    throw new TypeError(
      `Cannot build the filesystem scope: ${what} must be an absolute, non-UNC path`,
    );
  }
  return absolutize(path, path, os);
}

/**
 * Computes the effective scope. `sandboxed` = workspace only (no scratch
 * root); `project` = workspace + extra roots; `full` is
 * clamped to `project` with a notice.
 *
 * @param config Workspace, tier, extra roots and own dirs.
 * @param os Path flavour (the host's).
 * @returns The plan.
 * @throws {TypeError} When a configured path is not absolute or is UNC.
 */
export function planFsScope(
  config: FsScopeConfig,
  os: "posix" | "windows",
): ScopePlan {
  const workspace = requireAbsolute(config.workingDir, "workingDir", os);
  const ownDirs = (config.ownDirs ?? []).map((d) =>
    requireAbsolute(d, "an own dir", os)
  );
  const notices: string[] = [];
  let tier: ScopePlan["tier"] = config.fsScopeTier === "sandboxed"
    ? "sandboxed"
    : "project";
  if (config.fsScopeTier === "full") {
    tier = "project";
    notices.push(
      'fs_scope "full" is not available in this release; using "project" (workspace and configured extra roots)',
    );
  }
  const roots = [workspace];
  if (tier === "project") {
    for (const r of config.extraRoots ?? []) {
      const abs = requireAbsolute(r, "an extra root", os);
      if (!roots.some((x) => isWithin(abs, x, os))) roots.push(abs);
    }
  }
  return Object.freeze({
    tier,
    roots: Object.freeze(roots),
    ownDirs: Object.freeze(ownDirs),
    os,
    notices: Object.freeze(notices),
  });
}

/**
 * A path that passed the lexical check.
 */
export interface LexicalTarget {
  /** Normalised absolute path (not yet realpath'd). */
  absolute: string;
  /** The lexical root it lies in. */
  root: string;
  /** For the write intent: the protected-write floor applies. */
  protectedPath: boolean;
}

/**
 * The lexical half of the jail, run before any host call: rejects empty,
 * NUL-containing, UNC and drive-relative paths, resolves relative paths
 * against the workspace, requires the result to lie in a root
 * (separator-aware), and applies the sensitive floor (read intent) or
 * reports the protected floor (write intent).
 *
 * @param plan The scope.
 * @param path The requested path.
 * @param intent `read` (reads, lists) or `write`.
 * @returns The target or a path-free failure.
 */
export function checkLexicalPath(
  plan: ScopePlan,
  path: string,
  intent: "read" | "write",
): Result<LexicalTarget, ToolFailure> {
  const os = plan.os;
  if (path.trim() === "") {
    return err({ kind: "escape", message: REASONS.empty });
  }
  if (path.includes("\0")) {
    return err({ kind: "escape", message: "path contains a NUL character" });
  }
  if (isUncPath(path, os)) return err({ kind: "escape", message: REASONS.unc });
  if (isDriveRelative(path, os)) {
    return err({ kind: "escape", message: REASONS.driveRelative });
  }
  const workspace = plan.roots[0];
  if (workspace === undefined) {
    return err({ kind: "failed", message: REASONS.noRoot });
  }
  const absolute = absolutize(path, workspace, os);
  const root = plan.roots.find((r) => isWithin(absolute, r, os));
  if (root === undefined) {
    return err({ kind: "escape", message: REASONS.escape });
  }
  const floor = { os, ownDirs: plan.ownDirs };
  if (intent === "read" && isSensitivePath(absolute, floor)) {
    return err({
      kind: "refused",
      reason: "sensitive",
      message: REASONS.sensitive,
    });
  }
  const protectedPath = intent === "write" && isProtectedPath(absolute, floor);
  return ok({ absolute, root, protectedPath });
}
