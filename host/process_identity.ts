/**
 * This process as a writer lease names it: its pid, its host name when
 * the permissions allow reading it, and a liveness check of other
 * processes of this host. Permissions are queried, never prompted for.
 *
 * @module
 */

function granted(descriptor: Deno.PermissionDescriptor): boolean {
  try {
    return Deno.permissions.querySync(descriptor).state === "granted";
  } catch {
    return false;
  }
}

function hostname(): string | undefined {
  try {
    if (granted({ name: "sys", kind: "hostname" })) return Deno.hostname();
    if (granted({ name: "read", path: "/etc/hostname" })) {
      const name = Deno.readTextFileSync("/etc/hostname").trim();
      return name === "" ? undefined : name;
    }
  } catch {
    // No readable host name: the lease then goes stale by its heartbeat.
  }
  return undefined;
}

/**
 * Whether a process of this host exists: `undefined` when it cannot be
 * told (no `--allow-run`, another platform's error).
 *
 * @param pid The process id.
 * @returns `true` alive, `false` gone, `undefined` unknown.
 */
export function isProcessAlive(pid: number): boolean | undefined {
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  if (!granted({ name: "run" })) return undefined;
  try {
    // Signal 0 checks existence and delivers nothing.
    Deno.kill(pid, 0 as unknown as Deno.Signal);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    if (error instanceof Deno.errors.PermissionDenied) return true;
    return undefined;
  }
}

/**
 * This process's identity for a lease.
 *
 * @returns Its pid, host name (when readable) and the liveness check.
 */
export function thisProcess(): {
  pid: number;
  hostname?: string;
  isAlive(pid: number): boolean | undefined;
} {
  const name = hostname();
  return {
    pid: Deno.pid,
    ...(name === undefined ? {} : { hostname: name }),
    isAlive: isProcessAlive,
  };
}
