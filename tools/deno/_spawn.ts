/**
 * Private: child processes on Deno with whole-tree termination.
 *
 * `Deno.Command` has no process-group kill, so on POSIX the child is
 * spawned with `detached: true`, which makes it the leader of a new
 * session and process group (`pgid === pid`). Timeout, abort and normal
 * exit then send `SIGKILL` to the whole group (`kill(-pgid)`), so a
 * grandchild the command left behind (a daemon, `sleep &`) dies with it
 * and cannot hold the output pipes open.
 *
 * `Deno.kill` needs the unscoped `--allow-run`; under a scoped grant the
 * group is killed through the `kill` program instead (`--allow-run=kill`,
 * which `derivePermissions` adds for process tools on POSIX). With
 * neither, only the child itself is killed. Windows has no process
 * groups here: the child alone is killed. A descendant that leaves the
 * group on purpose (its own `setsid`) escapes; its pipes are then
 * abandoned after {@linkcode PIPE_GRACE_MS}.
 *
 * @module
 */
import { wrap } from "./_errors.ts";
import {
  type SpawnRequest,
  type SpawnResult,
  ToolEffectsError,
} from "../effects.ts";

/** How long the pipes may stay open after the group was killed. */
const PIPE_GRACE_MS = 1000;

interface Capture {
  done: Promise<{ text: string; truncated: boolean }>;
  cancel(): void;
}

function capture(
  stream: ReadableStream<Uint8Array>,
  maxBytes: number,
): Capture {
  const reader = stream.getReader();
  const done = (async (): Promise<{ text: string; truncated: boolean }> => {
    const kept: Uint8Array[] = [];
    let size = 0;
    let truncated = false;
    try {
      while (true) {
        const { done, value } = await reader.read();
        if (done) break;
        const room = maxBytes - size;
        if (room <= 0) {
          truncated = true;
          continue;
        }
        const take = value.subarray(0, room);
        if (take.length < value.length) truncated = true;
        kept.push(take);
        size += take.length;
      }
    } catch {
      // cancelled or broken pipe: keep what was read
    }
    const all = new Uint8Array(size);
    let at = 0;
    for (const c of kept) {
      all.set(c, at);
      at += c.length;
    }
    return { text: new TextDecoder().decode(all), truncated };
  })();
  return {
    done,
    cancel(): void {
      reader.cancel().catch(() => undefined);
    },
  };
}

function canKillGroupDirectly(): boolean {
  return Deno.permissions.querySync({ name: "run" }).state === "granted";
}

function canRunKill(): boolean {
  return Deno.permissions.querySync({ name: "run", command: "kill" }).state ===
    "granted";
}

/**
 * SIGKILLs process group `pgid` (POSIX). Never throws: a group that is
 * already gone is the normal case after a clean exit.
 */
export async function killGroup(
  pgid: number,
  env: Readonly<Record<string, string>>,
): Promise<void> {
  if (canKillGroupDirectly()) {
    try {
      Deno.kill(-pgid, "SIGKILL");
    } catch {
      // ESRCH: nothing left in the group
    }
    return;
  }
  if (!canRunKill()) return;
  try {
    await new Deno.Command("kill", {
      args: ["-KILL", "--", `-${pgid}`],
      env: { ...env },
      clearEnv: true,
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).output();
  } catch {
    // the kill program is missing: the child alone is killed
  }
}

/** Dependencies of {@linkcode spawnTree}. */
export interface SpawnDeps {
  /** Monotonic milliseconds (for `durationMs`). */
  now: () => number;
  /** Whether the platform has POSIX process groups. */
  posix: boolean;
}

/** Runs a child to completion; see the module doc for termination. */
export async function spawnTree(
  request: SpawnRequest,
  deps: SpawnDeps,
): Promise<SpawnResult> {
  if (request.signal.aborted) throw new ToolEffectsError("aborted");
  const started = deps.now();
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(request.program, {
      args: [...request.args],
      cwd: request.cwd,
      env: { ...request.env },
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      detached: deps.posix,
    }).spawn();
  } catch (e) {
    throw wrap(e);
  }
  const out = capture(child.stdout, request.maxOutputBytes);
  const err = capture(child.stderr, request.maxOutputBytes);
  let timedOut = false;
  let killing: Promise<void> | undefined;
  function kill(): Promise<void> {
    killing ??= (async (): Promise<void> => {
      if (deps.posix) await killGroup(child.pid, request.env);
      try {
        child.kill("SIGKILL");
      } catch {
        // already exited (the group kill took it)
      }
    })();
    return killing;
  }
  const timer = setTimeout(() => {
    timedOut = true;
    void kill();
  }, request.timeoutMs);
  const onAbort = (): void => void kill();
  request.signal.addEventListener("abort", onAbort, { once: true });
  try {
    const status = await child.status;
    clearTimeout(timer);
    if (deps.posix) await (killing ?? killGroup(child.pid, request.env));
    else await killing;
    const grace = setTimeout(() => {
      out.cancel();
      err.cancel();
    }, PIPE_GRACE_MS);
    const [o, e] = await Promise.all([out.done, err.done]);
    clearTimeout(grace);
    if (request.signal.aborted) throw new ToolEffectsError("aborted");
    return {
      exitCode: status.signal === null ? status.code : 1,
      stdout: o.text,
      stderr: e.text,
      stdoutTruncated: o.truncated,
      stderrTruncated: e.truncated,
      durationMs: Math.max(0, Math.round(deps.now() - started)),
      timedOut,
    };
  } catch (e) {
    throw wrap(e);
  } finally {
    clearTimeout(timer);
    request.signal.removeEventListener("abort", onAbort);
  }
}
