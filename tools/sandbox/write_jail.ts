/**
 * The write side of the jail, for `write_file`:
 *
 * 1. the lexical check (write intent) and the Deno read/write permission
 *    of the lexical root;
 * 2. `realpath` of the roots, then of the deepest existing ancestor of
 *    the target's parent, which must lie in a real root — checked
 *    **before** any `mkdir`;
 * 3. missing directories only with `createDirs`, one level at a time
 *    under the real ancestor, each level re-resolved (a swapped-in
 *    symlink is refused), and the parent's `realpath` re-checked;
 * 4. the protected-write floor on the real target (a symlinked directory
 *    into `.git` is refused even though the requested path was not
 *    protected — its approval did not cover it);
 * 5. `lstat` of the final component: a symlink is refused, anything but
 *    a regular file fails, and an append target with more than one hard
 *    link is refused (every tier of this release is jailed);
 * 6. the Deno write permission of the real target.
 *
 * The effect itself (temp file + `rename`, or a checked append) is the
 * host's. Residual race: between these checks and the host call another
 * process could swap a directory of the real parent for a symlink; Deno
 * has no `openat`/`O_NOFOLLOW` to pin the directory.
 *
 * @module
 */
import { err, ok, type Result } from "../../schema/result.ts";
import { isWithin, joinPath, segmentsOf } from "./_path.ts";
import { REASONS, type ToolFailure } from "../failure.ts";
import { isProtectedPath } from "./floors.ts";
import { hostFailure } from "./fs_access.ts";
import { checkLexicalPath, type ScopePlan } from "./fs_scope.ts";
import {
  type FileStat,
  type ToolEffects,
  ToolEffectsError,
} from "../effects.ts";
import { permissionFlag, type PermissionQuery } from "./permission_query.ts";

/** Where a checked write goes. */
export interface WriteTarget {
  /** The lexical absolute path (for the result). */
  absolute: string;
  /** The real directory the file is written in. */
  dir: string;
  /** The file name in `dir`. */
  name: string;
  /** `lstat` of the existing target, if any. */
  existing: FileStat | undefined;
}

/** Dependencies of {@linkcode resolveWriteTarget}. */
export interface WriteDeps {
  /** The effect host. */
  host: ToolEffects;
  /** Deno permission query. */
  permissions: PermissionQuery;
}

function refused(
  reason: "symlink" | "hard_link" | "protected",
  message: string,
): Result<never, ToolFailure> {
  return err({ kind: "refused", reason, message });
}

function unavailable(flag: string): Result<never, ToolFailure> {
  return err({
    kind: "unavailable",
    message: `needs the Deno permission ${flag}`,
  });
}

function isNotFound(e: unknown): boolean {
  return e instanceof ToolEffectsError && e.kind === "not_found";
}

/** The real paths of the roots that may be read and resolve. */
export async function realRoots(
  plan: ScopePlan,
  deps: WriteDeps,
): Promise<string[]> {
  const out: string[] = [];
  for (const r of plan.roots) {
    if (deps.permissions({ name: "read", path: r }) !== "granted") continue;
    try {
      out.push(await deps.host.realPath(r));
    } catch {
      // unresolvable roots are dropped
    }
  }
  return out;
}

/**
 * Resolves and checks a write target, creating missing directories only
 * when `createDirs` is set. Returns a path-free failure, never throws.
 *
 * @param plan The scope.
 * @param path The requested path.
 * @param options `createDirs`, `append`, the dependencies.
 * @returns The target, or the failure.
 */
export async function resolveWriteTarget(
  plan: ScopePlan,
  path: string,
  options: WriteDeps & { createDirs: boolean; append: boolean },
): Promise<Result<WriteTarget, ToolFailure>> {
  const { host, permissions } = options;
  const os = plan.os;
  const floor = { os, ownDirs: plan.ownDirs };
  const lexical = checkLexicalPath(plan, path, "write");
  if (!lexical.ok) return lexical;
  const { absolute, root: lexicalRoot, protectedPath } = lexical.value;
  for (const name of ["read", "write"] as const) {
    const p = { name, path: lexicalRoot };
    if (permissions(p) !== "granted") return unavailable(permissionFlag(p));
  }
  const writeFlag = permissionFlag({ name: "write", path: lexicalRoot });
  const roots = await realRoots(plan, options);
  if (roots.length === 0) {
    return err({ kind: "failed", message: REASONS.noRoot });
  }
  const inScope = (real: string): boolean =>
    roots.some((r) => isWithin(real, r, os));
  const segs = segmentsOf(absolute, os);
  const name = segs.at(-1);
  if (name === undefined || isWithin(lexicalRoot, absolute, os)) {
    return err({ kind: "failed", message: REASONS.notFile });
  }
  const parent = joinPath(os, absolute, "..");
  // Deepest existing ancestor of the parent, checked before any mkdir.
  const missing: string[] = [];
  let probe = parent;
  let real: string | undefined;
  while (real === undefined) {
    try {
      real = await host.realPath(probe);
    } catch (e) {
      if (!isNotFound(e) || isWithin(lexicalRoot, probe, os)) {
        return err(hostFailure(e, writeFlag));
      }
      missing.unshift(segmentsOf(probe, os).at(-1) ?? "");
      probe = joinPath(os, probe, "..");
    }
  }
  if (!inScope(real)) return refused("symlink", REASONS.symlink);
  if (missing.length > 0 && !options.createDirs) {
    return err({
      kind: "failed",
      message:
        "the parent directory does not exist (set createDirs to create it)",
    });
  }
  const realTarget = joinPath(os, real, ...missing, name);
  if (isProtectedPath(realTarget, floor) && !protectedPath) {
    return refused("protected", REASONS.protectedPath);
  }
  if (missing.length > 0 && host.mkdir === undefined) {
    return err({
      kind: "unavailable",
      message: "cannot create directories here",
    });
  }
  for (const seg of missing) {
    const next = joinPath(os, real, seg);
    const p = { name: "write" as const, path: next };
    if (permissions(p) !== "granted") return unavailable(writeFlag);
    try {
      await host.mkdir?.(next);
      const again = await host.realPath(next);
      if (again !== next || !inScope(again)) {
        return refused("symlink", REASONS.symlink);
      }
      real = again;
    } catch (e) {
      return err(hostFailure(e, writeFlag));
    }
  }
  // Re-check the parent after any mkdir (and against a late swap).
  try {
    const again = await host.realPath(real);
    if (again !== real || !inScope(again)) {
      return refused("symlink", REASONS.symlink);
    }
  } catch (e) {
    return err(hostFailure(e, writeFlag));
  }
  const target = joinPath(os, real, name);
  let existing: FileStat | undefined;
  try {
    existing = await host.lstat(target);
  } catch (e) {
    if (!isNotFound(e)) return err(hostFailure(e, writeFlag));
  }
  if (existing !== undefined) {
    if (existing.isSymlink) {
      return refused("symlink", "the target is a symlink");
    }
    if (!existing.isFile) {
      return err({ kind: "failed", message: REASONS.notFile });
    }
    if (options.append && existing.nlink !== null && existing.nlink > 1) {
      return refused("hard_link", REASONS.hardLink);
    }
  }
  if (permissions({ name: "write", path: target }) !== "granted") {
    return unavailable(writeFlag);
  }
  return ok({ absolute, dir: real, name, existing });
}
