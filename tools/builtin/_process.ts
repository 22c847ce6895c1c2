/**
 * Private: the shared tail of the process tools (`run_command`,
 * `git_commit`): the real working directory, the spawn, error mapping,
 * the truncation marker and the `ProcessResult`.
 *
 * @module
 */
import { err, ok, type Result } from "../../schema/result.ts";
import {
  absolutize,
  isAbsolutePath,
  isWithin,
  type PathOs,
} from "../sandbox/_path.ts";
import {
  baseEnvKeys,
  childEnv,
  pathListSeparator,
} from "../sandbox/child_env.ts";
import { REASONS, type ToolFailure } from "../failure.ts";
import { hostFailure } from "../sandbox/fs_access.ts";
import type { ScopePlan } from "../sandbox/fs_scope.ts";
import { realRoots } from "../sandbox/write_jail.ts";
import {
  type SpawnResult,
  type ToolEffects,
  ToolEffectsError,
} from "../effects.ts";
import {
  permissionFlag,
  type PermissionQuery,
} from "../sandbox/permission_query.ts";
import type { ToolRunContext, ToolRunResult } from "../tool.ts";

/**
 * Result of a process tool.
 */
export interface ProcessResult {
  /** Exit code (a signal death reports 1). */
  exitCode: number;
  /** Captured stdout, with a truncation marker past the capture cap. */
  stdout: string;
  /** Captured stderr, with a truncation marker past the capture cap. */
  stderr: string;
  /** Wall time measured by the host. */
  durationMs: number;
}

/** `text`, plus the marker when the capture cap cut it. */
export function withMarker(
  text: string,
  truncated: boolean,
  max: number,
): string {
  return truncated ? `${text}\n…[output truncated at ${max} bytes]` : text;
}

/**
 * The real path of `absolute` when it is a directory inside the real
 * workspace (`plan.roots[0]`), checked lexically by the caller.
 */
export async function realWorkDir(
  plan: ScopePlan,
  absolute: string,
  deps: { host: ToolEffects; permissions: PermissionQuery },
): Promise<Result<string, ToolFailure>> {
  const workspace = plan.roots[0];
  if (workspace === undefined) {
    return err({ kind: "failed", message: REASONS.noRoot });
  }
  const flag = permissionFlag({ name: "read", path: workspace });
  if (deps.permissions({ name: "read", path: workspace }) !== "granted") {
    return err({
      kind: "unavailable",
      message: `needs the Deno permission ${flag}`,
    });
  }
  try {
    const realWorkspace = await deps.host.realPath(workspace);
    const real = await deps.host.realPath(absolute);
    if (!isWithin(real, realWorkspace, plan.os)) {
      return err({
        kind: "refused",
        reason: "symlink",
        message: REASONS.symlink,
      });
    }
    const stat = await deps.host.stat(real);
    if (!stat.isDirectory) {
      return err({ kind: "failed", message: REASONS.notDirectory });
    }
    return ok(real);
  } catch (e) {
    return err(hostFailure(e, flag));
  }
}

/** A child environment and the `PATH` entries taken out of it. */
export interface ConfinedEnv {
  /** The complete child environment. */
  env: Record<string, string>;
  /** `PATH` entries removed because they lie inside a filesystem root. */
  dropped: string[];
}

/**
 * Whether a `PATH` entry may supply programs: absolute, not inside a
 * root lexically, and (where it may be read) resolving to a real
 * directory that is not inside a root either. An entry that does not
 * resolve supplies nothing and is left out as well.
 */
async function entryKind(
  entry: string,
  roots: readonly string[],
  deps: { host: ToolEffects; permissions: PermissionQuery; os: PathOs },
): Promise<"keep" | "inside" | "missing"> {
  const { os } = deps;
  if (!isAbsolutePath(entry, os)) return "missing";
  const inside = (p: string): boolean => roots.some((r) => isWithin(p, r, os));
  if (inside(absolutize(entry, entry, os))) return "inside";
  if (deps.permissions({ name: "read", path: entry }) !== "granted") {
    return "keep";
  }
  try {
    return inside(await deps.host.realPath(entry)) ? "inside" : "keep";
  } catch (e) {
    return e instanceof ToolEffectsError && e.kind === "not_found"
      ? "missing"
      : "keep";
  }
}

/**
 * The child environment of a process tool ({@linkcode childEnv}) whose
 * `PATH` keeps no entry inside the workspace or another filesystem root,
 * checked lexically and by real path: a program the model could write
 * (an activated `.venv/bin`, `node_modules/.bin`) is never what a bare
 * program name resolves to.
 */
export async function confinedEnv(
  host: ToolEffects,
  deps: {
    plan: ScopePlan;
    permissions: PermissionQuery;
    declared?: Readonly<Record<string, string>>;
  },
): Promise<ConfinedEnv> {
  const os = host.os;
  const env = childEnv(
    host.readEnv(baseEnvKeys(os)),
    deps.declared ?? {},
    os,
  );
  const roots = [
    ...deps.plan.roots,
    ...await realRoots(deps.plan, { host, permissions: deps.permissions }),
  ];
  const sep = pathListSeparator(os);
  const dropped: string[] = [];
  for (const key of ["PATH", "Path"]) {
    const value = env[key];
    if (value === undefined) continue;
    const kept: string[] = [];
    for (const entry of value.split(sep)) {
      const kind = await entryKind(entry, roots, {
        host,
        permissions: deps.permissions,
        os,
      });
      if (kind === "keep") kept.push(entry);
      else if (kind === "inside" && !dropped.includes(entry)) {
        dropped.push(entry);
      }
    }
    env[key] = kept.join(sep);
  }
  return { env, dropped };
}

/**
 * The failure of a program that is not on the child's `PATH`, naming the
 * entries that were left out for lying inside a root.
 */
export function notOnPath(
  what: string,
  dropped: readonly string[],
  kind: "failed" | "unavailable",
): ToolFailure {
  const skipped = dropped.length === 0
    ? ""
    : ` (PATH entries inside the workspace or a filesystem root are skipped: ${
      dropped.join(", ")
    })`;
  return { kind, message: `${what}${skipped}` };
}

/** What {@linkcode runProcess} spawns. */
export interface ProcessSpec {
  /** Program name or path. */
  program: string;
  /** Arguments. */
  args: readonly string[];
  /** Real working directory. */
  cwd: string;
  /** Complete child environment. */
  env: Readonly<Record<string, string>>;
  /** Timeout in milliseconds. */
  timeoutMs: number;
  /** Failure when the program is not on the host PATH. */
  notFound: ToolFailure;
  /** Summary label, e.g. `git commit`. */
  label: string;
}

/**
 * Spawns and maps failures (permission, not found, host errors,
 * timeout) to a `ToolFailure`; the raw result otherwise.
 */
export async function spawnProcess(
  host: ToolEffects,
  spec: ProcessSpec,
  ctx: ToolRunContext,
): Promise<Result<SpawnResult, ToolFailure>> {
  const runFlag = permissionFlag({ name: "run", command: spec.program });
  if (ctx.permissions({ name: "run", command: spec.program }) !== "granted") {
    return err({
      kind: "unavailable",
      message: `needs the Deno permission ${runFlag}`,
    });
  }
  let run: SpawnResult;
  try {
    run = await host.spawn({
      program: spec.program,
      args: spec.args,
      cwd: spec.cwd,
      env: spec.env,
      timeoutMs: spec.timeoutMs,
      maxOutputBytes: ctx.limits.processOutputBytes,
      signal: ctx.signal,
    });
  } catch (e) {
    if (e instanceof ToolEffectsError && e.kind === "not_found") {
      return err(spec.notFound);
    }
    return err(hostFailure(e, runFlag));
  }
  if (run.timedOut) {
    return err({
      kind: "failed",
      message:
        `${spec.label} timed out after ${spec.timeoutMs} ms and was killed`,
    });
  }
  return ok(run);
}

/** The `ProcessResult` of a finished run, with truncation markers. */
export function processResult(
  run: SpawnResult,
  spec: Pick<ProcessSpec, "label">,
  max: number,
): ToolRunResult {
  const value: ProcessResult = {
    exitCode: run.exitCode,
    stdout: withMarker(run.stdout, run.stdoutTruncated, max),
    stderr: withMarker(run.stderr, run.stderrTruncated, max),
    durationMs: run.durationMs,
  };
  return {
    ok: true,
    value,
    summary: `${spec.label} exited ${run.exitCode}`,
  };
}

/** Spawns, maps failures, and shapes the `ProcessResult`. */
export async function runProcess(
  host: ToolEffects,
  spec: ProcessSpec,
  ctx: ToolRunContext,
): Promise<ToolRunResult> {
  const run = await spawnProcess(host, spec, ctx);
  if (!run.ok) return run;
  return processResult(run.value, spec, ctx.limits.processOutputBytes);
}
