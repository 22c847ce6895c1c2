/**
 * Private: the shared tail of the process tools (`run_command`,
 * `git_commit`): the real working directory, the spawn, error mapping,
 * the truncation marker and the `ProcessResult`.
 *
 * @module
 */
import { err, ok, type Result } from "../../schema/result.ts";
import { isWithin } from "../sandbox/_path.ts";
import { REASONS, type ToolFailure } from "../failure.ts";
import { hostFailure } from "../sandbox/fs_access.ts";
import type { ScopePlan } from "../sandbox/fs_scope.ts";
import {
  type SpawnResult,
  type ToolEffects,
  ToolEffectsError,
} from "../effects.ts";
import {
  permissionFlag,
  type PermissionQuery,
} from "../sandbox/permission_query.ts";
import type { ProcessResult } from "./git_status.ts";
import type { ToolRunContext, ToolRunResult } from "../tool.ts";

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

/** Spawns, maps failures, and shapes the `ProcessResult`. */
export async function runProcess(
  host: ToolEffects,
  spec: ProcessSpec,
  ctx: ToolRunContext,
): Promise<ToolRunResult> {
  const max = ctx.limits.processOutputBytes;
  const runFlag = permissionFlag({ name: "run", command: spec.program });
  if (ctx.permissions({ name: "run", command: spec.program }) !== "granted") {
    return {
      ok: false,
      error: {
        kind: "unavailable",
        message: `needs the Deno permission ${runFlag}`,
      },
    };
  }
  let run: SpawnResult;
  try {
    run = await host.spawn({
      program: spec.program,
      args: spec.args,
      cwd: spec.cwd,
      env: spec.env,
      timeoutMs: spec.timeoutMs,
      maxOutputBytes: max,
      signal: ctx.signal,
    });
  } catch (e) {
    if (e instanceof ToolEffectsError && e.kind === "not_found") {
      return { ok: false, error: spec.notFound };
    }
    return { ok: false, error: hostFailure(e, runFlag) };
  }
  if (run.timedOut) {
    return {
      ok: false,
      error: {
        kind: "failed",
        message:
          `${spec.label} timed out after ${spec.timeoutMs} ms and was killed`,
      },
    };
  }
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
