/**
 * The jail's effectful half: it realpaths the
 * roots (once per operation), realpaths the
 * target, refuses symlink escapes and hard links, re-applies the
 * sensitive floor to the real path, and queries the Deno read permission
 * of the real path before any metadata or content call on it (a `prompt`
 * state never reaches Deno).
 *
 * Each operation resolves the roots once, through a
 * {@linkcode createRootCache} of its own. A caller may share one cache
 * across operations, which pins each root at its first resolution; the
 * registry does not: with the metadata calls synchronous, re-resolving
 * costs ~7 µs and every operation sees the roots as they are now (BENCHMARKS.md,
 * Tools).
 *
 * @module
 */
import { err, ok, type Result } from "../../schema/result.ts";
import { isWithin } from "./_path.ts";
import { REASONS, type ToolFailure } from "../failure.ts";
import { isSensitivePath } from "./floors.ts";
import { checkLexicalPath, type ScopePlan } from "./fs_scope.ts";
import {
  type DirEntryInfo,
  type FileStat,
  type ToolEffects,
  ToolEffectsError,
} from "../effects.ts";
import { permissionFlag, type PermissionQuery } from "./permission_query.ts";

/** A target that passed the whole jail (what `FsAccess.resolve` gives). */
export type ResolvedPath = Extract<
  Awaited<ReturnType<FsAccess["resolve"]>>,
  { ok: true }
>["value"];

/**
 * Jailed filesystem access for one operation. Every method returns a
 * path-free failure instead of throwing.
 */
export interface FsAccess {
  /** The scope this access enforces. */
  readonly plan: ScopePlan;
  /** Resolves an existing file or directory for reading. */
  resolve(
    path: string,
    expect: "file" | "directory",
  ): Promise<
    Result<{
      /** The lexical absolute path. */
      absolute: string;
      /** The canonical path (what is actually read). */
      real: string;
      /** The canonical root containing `real`. */
      root: string;
      /** Metadata of `real`. */
      stat: FileStat;
    }, ToolFailure>
  >;
  /**
   * Lists a directory that a walk queued: re-resolves it just before
   * reading and skips it (empty list) if it moved, left the scope or
   * became sensitive.
   */
  readDir(
    real: string,
    limit: number,
  ): Promise<Result<DirEntryInfo[], ToolFailure>>;
  /** `lstat` of a real path inside the scope, permission-checked. */
  lstat(real: string): Promise<Result<FileStat, ToolFailure>>;
}

/**
 * Maps a host error to a path-free failure.
 *
 * @param error What the host threw.
 * @param flag The permission flag to name when Deno refused, if known.
 * @returns The failure.
 */
export function hostFailure(error: unknown, flag?: string): ToolFailure {
  if (!(error instanceof ToolEffectsError)) {
    return { kind: "failed", message: REASONS.hostFailed };
  }
  switch (error.kind) {
    case "not_found":
      return { kind: "failed", message: REASONS.notFound };
    case "not_capable":
      return {
        kind: "unavailable",
        message: flag === undefined
          ? "needs a Deno permission that is not granted"
          : `needs the Deno permission ${flag}`,
      };
    case "permission_denied":
      return { kind: "failed", message: REASONS.osDenied };
    case "not_a_directory":
      return { kind: "failed", message: REASONS.notDirectory };
    case "is_a_directory":
      return { kind: "failed", message: REASONS.notFile };
    default:
      return { kind: "failed", message: REASONS.hostFailed };
  }
}

/**
 * The realpaths of a scope's readable roots, resolved lazily.
 */
export type RootCache = () => Promise<string[]>;

/**
 * A root cache shared by the operations of one registry: each root is
 * realpath'd at the first call where its read permission is granted and
 * the realpath succeeds, then pinned (roots are fixed at session start;
 * see the module doc for why pinning is never laxer). A root that is not
 * granted or does not resolve is left out and retried on the next call.
 * Creating it touches nothing.
 *
 * @param plan The scope.
 * @param deps Host and permission query.
 * @returns The cache.
 */
export function createRootCache(
  plan: ScopePlan,
  deps: { host: ToolEffects; permissions: PermissionQuery },
): RootCache {
  const pinned: Array<string | undefined> = plan.roots.map(() => undefined);
  let all: string[] | undefined;
  return async () => {
    if (all !== undefined) return all;
    await Promise.all(plan.roots.map(async (r, i) => {
      if (pinned[i] !== undefined) return;
      if (deps.permissions({ name: "read", path: r }) !== "granted") return;
      pinned[i] = await deps.host.realPath(r).catch(() => undefined);
    }));
    const found = pinned.filter((r): r is string => r !== undefined);
    if (found.length === plan.roots.length) all = found;
    return found;
  };
}

/**
 * Builds the jailed access for one operation (roots are realpath'd once,
 * lazily, at the first resolve, or come from a registry's
 * {@linkcode createRootCache}).
 *
 * @param plan The scope.
 * @param deps Host, permission query and abort signal.
 * @returns The access.
 */
export function createFsAccess(
  plan: ScopePlan,
  deps: {
    host: ToolEffects;
    permissions: PermissionQuery;
    signal: AbortSignal;
    /** Shared root realpaths, e.g. a `createRootCache()` (default: own). */
    roots?: () => Promise<string[]>;
  },
): FsAccess {
  const { host, permissions, signal } = deps;
  const os = plan.os;
  const floor = { os, ownDirs: plan.ownDirs };
  const cache = deps.roots ?? createRootCache(plan, { host, permissions });
  let realRoots: Promise<string[]> | undefined;

  /** Realpaths of the readable roots; unresolvable ones are dropped. */
  function roots(): Promise<string[]> {
    realRoots ??= cache();
    return realRoots;
  }

  /** In-scope, non-sensitive, readable real path ⇒ its real root. */
  async function admitReal(real: string): Promise<Result<string, ToolFailure>> {
    const root = (await roots()).find((r) => isWithin(real, r, os));
    if (root === undefined) {
      return err({
        kind: "refused",
        reason: "symlink",
        message: REASONS.symlink,
      });
    }
    if (isSensitivePath(real, floor)) {
      return err({
        kind: "refused",
        reason: "sensitive",
        message: REASONS.sensitive,
      });
    }
    if (permissions({ name: "read", path: real }) !== "granted") {
      const flag = permissionFlag({ name: "read", path: root });
      return err({
        kind: "unavailable",
        message: `needs the Deno permission ${flag}`,
      });
    }
    return ok(root);
  }

  function readFlag(root: string): string {
    return permissionFlag({ name: "read", path: root });
  }

  return {
    plan,
    async resolve(path, expect): Promise<Result<ResolvedPath, ToolFailure>> {
      const lexical = checkLexicalPath(plan, path, "read");
      if (!lexical.ok) return lexical;
      const { absolute, root: lexicalRoot } = lexical.value;
      if (permissions({ name: "read", path: lexicalRoot }) !== "granted") {
        const flag = readFlag(lexicalRoot);
        return err({
          kind: "unavailable",
          message: `needs the Deno permission ${flag}`,
        });
      }
      // The roots and the target resolve concurrently (both only read
      // metadata; the lexical root's permission was checked above).
      const [realRootList, target] = await Promise.all([
        roots(),
        host.realPath(absolute).then(
          (value) => ({ ok: true as const, value }),
          (error: unknown) => ({ ok: false as const, error }),
        ),
      ]);
      if (realRootList.length === 0) {
        return err({ kind: "failed", message: REASONS.noRoot });
      }
      if (!target.ok) {
        return err(hostFailure(target.error, readFlag(lexicalRoot)));
      }
      const real = target.value;
      const root = await admitReal(real);
      if (!root.ok) return root;
      let stat: FileStat;
      try {
        stat = await host.stat(real);
      } catch (e) {
        return err(hostFailure(e, readFlag(root.value)));
      }
      if (expect === "directory" && !stat.isDirectory) {
        return err({ kind: "failed", message: REASONS.notDirectory });
      }
      if (expect === "file") {
        if (!stat.isFile) {
          return err({ kind: "failed", message: REASONS.notFile });
        }
        if (stat.nlink !== null && stat.nlink > 1) {
          return err({
            kind: "refused",
            reason: "hard_link",
            message: REASONS.hardLink,
          });
        }
      }
      return ok({ absolute, real, root: root.value, stat });
    },
    async readDir(real, limit): Promise<Result<DirEntryInfo[], ToolFailure>> {
      const root = await admitReal(real);
      if (!root.ok) return root.error.kind === "unavailable" ? root : ok([]);
      let again: string;
      try {
        again = await host.realPath(real);
      } catch {
        return ok([]);
      }
      if (again !== real) return ok([]);
      try {
        return ok(await host.readDir(real, { limit, signal }));
      } catch (e) {
        return err(hostFailure(e, readFlag(root.value)));
      }
    },
    async lstat(real): Promise<Result<FileStat, ToolFailure>> {
      const root = await admitReal(real);
      if (!root.ok) return root;
      try {
        return ok(await host.lstat(real));
      } catch (e) {
        return err(hostFailure(e, readFlag(root.value)));
      }
    },
  };
}
