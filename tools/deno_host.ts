/**
 * The real effect boundary: a `ToolHost` over Deno's file and process
 * APIs, and the `PermissionQuery` over `Deno.permissions.querySync`. This
 * is the one file in `tools/` that touches `Deno.*`, the environment and
 * the clock. It never calls `Deno.permissions.request`; run with
 * `--no-prompt` so a missed query fails instead of prompting.
 *
 * @module
 */
import {
  type DirEntryInfo,
  type FileStat,
  type HostErrorKind,
  type SpawnResult,
  type ToolHost,
  ToolHostError,
} from "./host.ts";
import type { PermissionQuery } from "./permission_query.ts";

function kindOf(error: unknown): HostErrorKind {
  if (error instanceof Deno.errors.NotFound) return "not_found";
  if (error instanceof Deno.errors.NotCapable) return "not_capable";
  if (error instanceof Deno.errors.PermissionDenied) return "permission_denied";
  if (error instanceof Deno.errors.NotADirectory) return "not_a_directory";
  if (error instanceof Deno.errors.IsADirectory) return "is_a_directory";
  if (error instanceof DOMException && error.name === "AbortError") {
    return "aborted";
  }
  if (error instanceof Deno.errors.Interrupted) return "aborted";
  return "failed";
}

function wrap(error: unknown): ToolHostError {
  return error instanceof ToolHostError
    ? error
    : new ToolHostError(kindOf(error), { cause: error });
}

function toStat(info: Deno.FileInfo): FileStat {
  return {
    isFile: info.isFile,
    isDirectory: info.isDirectory,
    isSymlink: info.isSymlink,
    size: info.size,
    mtimeMs: info.mtime === null ? null : info.mtime.getTime(),
    nlink: info.nlink,
  };
}

async function readCapped(
  path: string,
  maxBytes: number,
  signal: AbortSignal,
): Promise<Uint8Array> {
  const file = await Deno.open(path, { read: true });
  try {
    const chunks: Uint8Array[] = [];
    let total = 0;
    const buf = new Uint8Array(64 * 1024);
    while (total <= maxBytes) {
      if (signal.aborted) throw new ToolHostError("aborted");
      const n = await file.read(buf);
      if (n === null) break;
      chunks.push(buf.slice(0, n));
      total += n;
    }
    const out = new Uint8Array(Math.min(total, maxBytes + 1));
    let at = 0;
    for (const c of chunks) {
      const take = Math.min(c.length, out.length - at);
      out.set(c.subarray(0, take), at);
      at += take;
      if (at >= out.length) break;
    }
    return out;
  } finally {
    file.close();
  }
}

async function capture(
  stream: ReadableStream<Uint8Array>,
  maxBytes: number,
): Promise<{ text: string; truncated: boolean }> {
  const kept: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for await (const chunk of stream) {
    const room = maxBytes - size;
    if (room <= 0) {
      truncated = true;
      continue;
    }
    const take = chunk.subarray(0, room);
    if (take.length < chunk.length) truncated = true;
    kept.push(take);
    size += take.length;
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of kept) {
    all.set(c, at);
    at += c.length;
  }
  return { text: new TextDecoder().decode(all), truncated };
}

async function spawn(
  request: Parameters<ToolHost["spawn"]>[0],
): Promise<SpawnResult> {
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), request.timeoutMs);
  const started = performance.now();
  try {
    const child = new Deno.Command(request.program, {
      args: [...request.args],
      cwd: request.cwd,
      env: { ...request.env },
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.any([request.signal, timeout.signal]),
    }).spawn();
    const [out, err, status] = await Promise.all([
      capture(child.stdout, request.maxOutputBytes),
      capture(child.stderr, request.maxOutputBytes),
      child.status,
    ]);
    if (request.signal.aborted) throw new ToolHostError("aborted");
    return {
      exitCode: status.signal === null ? status.code : 1,
      stdout: out.text,
      stderr: err.text,
      stdoutTruncated: out.truncated,
      stderrTruncated: err.truncated,
      durationMs: Math.round(performance.now() - started),
      timedOut: timeout.signal.aborted,
    };
  } catch (e) {
    throw wrap(e);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The production host over Deno's APIs. Creating it touches nothing.
 * Child processes get exactly `request.env` (`clearEnv: true`), no shell
 * and no stdin; a timeout or abort kills the child (not its descendants:
 * Deno has no process-group kill).
 *
 * @returns The host.
 *
 * @example Read a file
 * ```ts
 * import { createDenoToolHost } from "@relavium/session/tools";
 * import assert from "node:assert/strict";
 * const host = createDenoToolHost();
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/a.txt`, "hello");
 * const bytes = await host.readFile(`${dir}/a.txt`, { maxBytes: 3, signal: new AbortController().signal });
 * assert.equal(bytes.length, 4); // maxBytes + 1 reveals the overflow
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function createDenoToolHost(): ToolHost {
  return {
    os: Deno.build.os === "windows" ? "windows" : "posix",
    async realPath(path): Promise<string> {
      try {
        return await Deno.realPath(path);
      } catch (e) {
        throw wrap(e);
      }
    },
    async lstat(path): Promise<FileStat> {
      try {
        return toStat(await Deno.lstat(path));
      } catch (e) {
        throw wrap(e);
      }
    },
    async stat(path): Promise<FileStat> {
      try {
        return toStat(await Deno.stat(path));
      } catch (e) {
        throw wrap(e);
      }
    },
    async readFile(path, options): Promise<Uint8Array> {
      try {
        return await readCapped(path, options.maxBytes, options.signal);
      } catch (e) {
        throw wrap(e);
      }
    },
    async readDir(path, options): Promise<DirEntryInfo[]> {
      const out: DirEntryInfo[] = [];
      try {
        for await (const e of Deno.readDir(path)) {
          if (options.signal.aborted) throw new ToolHostError("aborted");
          if (out.length >= options.limit) break;
          out.push({
            name: e.name,
            isFile: e.isFile,
            isDirectory: e.isDirectory,
            isSymlink: e.isSymlink,
          });
        }
      } catch (e) {
        throw wrap(e);
      }
      return out;
    },
    readEnv(keys): Record<string, string> {
      const out: Record<string, string> = {};
      for (const variable of keys) {
        if (
          Deno.permissions.querySync({ name: "env", variable }).state !==
            "granted"
        ) {
          continue;
        }
        const value = Deno.env.get(variable);
        if (value !== undefined) out[variable] = value;
      }
      return out;
    },
    spawn,
  };
}

/**
 * The production permission query: `Deno.permissions.querySync`, never
 * `request` (a `prompt` state is reported, and treated as not granted).
 *
 * @returns The query.
 *
 * @example Query
 * ```ts
 * import { createDenoPermissionQuery } from "@relavium/session/tools";
 * import assert from "node:assert/strict";
 * const query = createDenoPermissionQuery();
 * assert.ok(["granted", "denied", "prompt"].includes(query({ name: "env", variable: "HOME" })));
 * ```
 */
export function createDenoPermissionQuery(): PermissionQuery {
  return (permission) => Deno.permissions.querySync(permission).state;
}
