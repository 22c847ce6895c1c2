/**
 * The real effect boundary: a `ToolEffects` over Deno's file and process
 * APIs, and the `PermissionQuery` over `Deno.permissions.querySync`. This
 * file and its private halves (`_deno_spawn.ts`, `_deno_write.ts`,
 * `_deno_net.ts`) are the only ones in `tools/` that touch `Deno.*`, the
 * environment, the network and the clock. It never calls `Deno.permissions.request`; run with
 * `--no-prompt` so a missed query fails instead of prompting.
 *
 * @module
 */
import { toStat, wrap } from "./_errors.ts";
import { fetchOnce, resolveAll } from "./_net.ts";
import { spawnTree } from "./_spawn.ts";
import { appendChecked, mkdirOne, writeAtomic } from "./_write.ts";
import {
  type DirEntryInfo,
  type FileStat,
  type HttpResponse,
  type SpawnResult,
  type ToolEffects,
  ToolEffectsError,
} from "../effects.ts";
import type { PermissionQuery } from "../sandbox/permission_query.ts";

/**
 * Bytes read with `readSync` before a read turns async (abort checks
 * between reads). A synchronous read of a local regular file costs a few
 * µs, an async op's round trip 25–40 µs.
 */
const SYNC_READ_BYTES = 256 * 1024;
/** Buffer size past the `stat`-sized first buffer (a file that grew). */
const CHUNK_BYTES = 64 * 1024;

/**
 * Opens `path` (async: a FIFO swapped in after the jail's `stat` blocks a
 * worker thread, not the event loop), `fstat`s the handle and refuses
 * anything but a regular file with one link (the jail's rules, re-checked
 * on what is actually read), then reads at most `maxBytes + 1` bytes into
 * a buffer sized from the handle's size plus one byte for the EOF probe.
 */
async function readCapped(
  path: string,
  maxBytes: number,
  signal: AbortSignal,
): Promise<Uint8Array> {
  const file = await Deno.open(path, { read: true });
  try {
    const info = file.statSync();
    if (!info.isFile) {
      throw new ToolEffectsError(
        info.isDirectory ? "is_a_directory" : "failed",
      );
    }
    if (info.nlink !== null && info.nlink > 1) {
      throw new ToolEffectsError("failed");
    }
    const chunks: Uint8Array[] = [];
    let buf = new Uint8Array(Math.min(info.size, maxBytes) + 1);
    let filled = 0;
    let total = 0;
    while (total <= maxBytes) {
      if (signal.aborted) throw new ToolEffectsError("aborted");
      const sync = total < SYNC_READ_BYTES;
      const into = buf.subarray(
        filled,
        sync ? Math.min(buf.length, filled + SYNC_READ_BYTES) : buf.length,
      );
      const n = sync ? file.readSync(into) : await file.read(into);
      if (n === null) break;
      filled += n;
      total += n;
      if (filled === buf.length) {
        chunks.push(buf);
        buf = new Uint8Array(CHUNK_BYTES);
        filled = 0;
      }
    }
    if (chunks.length === 0) return buf.subarray(0, filled);
    chunks.push(buf.subarray(0, filled));
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

/**
 * The production host over Deno's APIs. Creating it touches nothing.
 * Child processes get exactly `request.env` (`clearEnv: true`), no shell
 * and no stdin. On POSIX each child leads its own process group
 * (`detached: true`); timeout, abort and normal exit SIGKILL the whole
 * group (`Deno.kill(-pgid)` under an unscoped `--allow-run`, else the
 * `kill` program under `--allow-run=kill`, else the child alone).
 * `realPath`, `stat` and `lstat` are synchronous syscalls behind promises
 * (cheaper than an async op; a hung network filesystem would block the
 * event loop); `readFile` opens asynchronously, re-checks the open handle
 * (a regular file with one link, else it throws) and reads its first
 * 256 KiB synchronously. Writes
 * go through an exclusive temp file and `rename`; appends re-check the
 * file's identity after opening. `fetch` connects to one of the request's
 * validated addresses (TLS verified for the URL's host name), never
 * follows redirects, and needs `--allow-net` for `address:port`.
 *
 * @param options Clock and extra CA certificates.
 * @returns The host.
 *
 * @example Read a file
 * ```ts
 * import { createDenoToolEffects } from "@relavium/session/tools";
 * import assert from "node:assert/strict";
 * const host = createDenoToolEffects();
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/a.txt`, "hello");
 * const bytes = await host.readFile(`${dir}/a.txt`, { maxBytes: 3, signal: new AbortController().signal });
 * assert.equal(bytes.length, 4); // maxBytes + 1 reveals the overflow
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function createDenoToolEffects(
  options: {
    /** Monotonic clock for `durationMs` (default `performance.now`). */
    now?: () => number;
    /** Extra PEM root certificates `http_request` trusts (default none). */
    caCerts?: readonly string[];
  } = {},
): ToolEffects {
  const windows = Deno.build.os === "windows";
  const now = options.now ?? ((): number => performance.now());
  const caCerts = [...(options.caCerts ?? [])];
  const userAgent = `Deno/${Deno.version.deno}`;
  return {
    os: windows ? "windows" : "posix",
    // Metadata calls are synchronous syscalls behind the async interface:
    // ~5–8 µs each on a local filesystem against 25–40 µs for an async op
    // (BENCHMARKS.md "Tools"); they never open the file.
    realPath(path): Promise<string> {
      try {
        return Promise.resolve(Deno.realPathSync(path));
      } catch (e) {
        return Promise.reject(wrap(e));
      }
    },
    lstat(path): Promise<FileStat> {
      try {
        return Promise.resolve(toStat(Deno.lstatSync(path)));
      } catch (e) {
        return Promise.reject(wrap(e));
      }
    },
    stat(path): Promise<FileStat> {
      try {
        return Promise.resolve(toStat(Deno.statSync(path)));
      } catch (e) {
        return Promise.reject(wrap(e));
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
          if (options.signal.aborted) throw new ToolEffectsError("aborted");
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
    spawn(request): Promise<SpawnResult> {
      return spawnTree(request, { now, posix: !windows });
    },
    mkdir: mkdirOne,
    writeFileAtomic(dir, name, data, opts): Promise<void> {
      return writeAtomic(dir, name, data, { ...opts, windows });
    },
    appendFile: appendChecked,
    async resolveDns(name, signal): Promise<string[]> {
      return await resolveAll(name, signal);
    },
    fetch(request): Promise<HttpResponse> {
      return fetchOnce(request, { caCerts, userAgent });
    },
  };
}

/**
 * The production permission query: `Deno.permissions.querySync`, never
 * `request` (a `prompt` state is reported, and treated as not granted).
 *
 * @returns The query.
 */
export function createDenoPermissionQuery(): PermissionQuery {
  return (permission) => Deno.permissions.querySync(permission).state;
}

/**
 * A DNS resolver over `Deno.resolveDns` (A and AAAA), for
 * `checkPublicUrl` (the CLI's custom provider base URLs). Needs
 * `--allow-net` for the system resolver's `ip:53`.
 *
 * @returns `(name) => every address`.
 */
export function createDenoResolver(): (
  name: string,
) => Promise<readonly string[]> {
  return (name) => resolveAll(name, new AbortController().signal);
}
