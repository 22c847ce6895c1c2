/**
 * The effect seam of the tools: every filesystem and process effect goes
 * through a {@linkcode ToolEffects}, so policy code stays pure and tests use
 * fakes or real temp dirs. The Deno implementation lives in
 * `deno/effects.ts`.
 *
 * @module
 */

/**
 * File metadata as the tools need it.
 */
export interface FileStat {
  /** A regular file. */
  isFile: boolean;
  /** A directory. */
  isDirectory: boolean;
  /** A symlink (only ever `true` from `lstat`). */
  isSymlink: boolean;
  /** Size in bytes. */
  size: number;
  /** Modification time in epoch ms; `null` when the platform has none. */
  mtimeMs: number | null;
  /** Hard-link count; `null` when the platform reports none. */
  nlink: number | null;
  /**
   * Identity of the file (`<dev>:<ino>` on POSIX); absent when the platform
   * has none. `appendFile` compares it to detect a swap after `lstat`.
   */
  fileId?: string;
}

/**
 * One directory entry (no metadata beyond its type; `lstat` for more).
 */
export interface DirEntryInfo {
  /** The entry's name (one path segment). */
  name: string;
  /** A regular file. */
  isFile: boolean;
  /** A directory. */
  isDirectory: boolean;
  /** A symlink; never followed by walks. */
  isSymlink: boolean;
}

/**
 * A child process to run with a cleared environment (`clearEnv: true`,
 * no shell, stdin closed).
 */
export interface SpawnRequest {
  /** Program name (resolved on the host's PATH) or a path. */
  program: string;
  /** Arguments, passed as-is (no shell). */
  args: readonly string[];
  /** Working directory. */
  cwd: string;
  /** The complete child environment; nothing is inherited. */
  env: Readonly<Record<string, string>>;
  /** Kill the child after this many milliseconds. */
  timeoutMs: number;
  /** Bytes kept per stream; the rest is drained and dropped. */
  maxOutputBytes: number;
  /** Aborting kills the child and rejects with kind `aborted`. */
  signal: AbortSignal;
}

/**
 * What a finished child reported.
 */
export interface SpawnResult {
  /** Exit code; a signal death reports 1. */
  exitCode: number;
  /** Captured stdout (UTF-8, lossy), at most `maxOutputBytes` bytes. */
  stdout: string;
  /** Captured stderr (UTF-8, lossy), at most `maxOutputBytes` bytes. */
  stderr: string;
  /** Whether stdout exceeded `maxOutputBytes`. */
  stdoutTruncated: boolean;
  /** Whether stderr exceeded `maxOutputBytes`. */
  stderrTruncated: boolean;
  /** Wall time the child ran, measured by the host. */
  durationMs: number;
  /** Whether the timeout killed the child. */
  timedOut: boolean;
}

/**
 * An HTTP request the host performs exactly once: redirects are never
 * followed, the body is read up to `maxBodyBytes`. The connection goes to
 * one of `addresses` (the checked DNS answers), never to an address the
 * host resolves itself; TLS is verified for the URL's host name.
 */
export interface HttpRequest {
  /** Absolute `https` URL (already checked by the SSRF guard). */
  url: string;
  /**
   * Validated IP addresses to connect to, tried in order (the SSRF
   * check's DNS answers). Absent ⇒ the URL's host must be an IP literal;
   * the Deno host refuses a name without addresses.
   */
  addresses?: readonly string[];
  /** HTTP method. */
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** Scrubbed request headers. */
  headers: Readonly<Record<string, string>>;
  /** UTF-8 request body. */
  body?: string;
  /** Abort the request after this many milliseconds (kind `failed`). */
  timeoutMs: number;
  /** Body bytes kept; one more byte sets `bodyTruncated`. */
  maxBodyBytes: number;
  /** Aborting cancels the request (kind `aborted`). */
  signal: AbortSignal;
}

/**
 * What the server answered (a 3xx is returned as is, with its `location`).
 */
export interface HttpResponse {
  /** Status code. */
  status: number;
  /** Response headers, lowercase names (repeated values joined by `, `). */
  headers: Record<string, string>;
  /** At most `maxBodyBytes` bytes of the body. */
  body: Uint8Array;
  /** Whether the body exceeded `maxBodyBytes` (the rest was not read). */
  bodyTruncated: boolean;
}

/**
 * Classes of host failure. `not_capable` is a missing Deno permission
 * (`tool_unavailable`); `permission_denied` is the operating system's
 * refusal (`tool_failed`).
 */
export type EffectErrorKind =
  | "not_found"
  | "permission_denied"
  | "not_capable"
  | "not_a_directory"
  | "is_a_directory"
  | "aborted"
  | "failed";

/**
 * The one error a {@linkcode ToolEffects} throws. Its message is fixed per
 * kind and never contains a path.
 */
export class ToolEffectsError extends Error {
  /** The failure class. */
  readonly kind: EffectErrorKind;

  /**
   * Builds a host error.
   *
   * @param kind The failure class.
   * @param options Optional `cause` (kept for debugging, never shown).
   */
  constructor(kind: EffectErrorKind, options?: { cause?: unknown }) {
    super(`Host operation failed: ${kind.replaceAll("_", " ")}`, options);
    this.name = "ToolEffectsError";
    this.kind = kind;
  }
}

/**
 * Every effect a tool may have. Paths are absolute. Implementations throw
 * only {@linkcode ToolEffectsError}. Hosts never prompt for permissions: the
 * pipeline queries them first.
 */
export interface ToolEffects {
  /** Path flavour of the platform. */
  readonly os: "posix" | "windows";
  /** Canonical path (symlinks resolved); the path must exist. */
  realPath(path: string): Promise<string>;
  /** Metadata of the path itself (symlinks not followed). */
  lstat(path: string): Promise<FileStat>;
  /** Metadata of the final target (symlinks followed). */
  stat(path: string): Promise<FileStat>;
  /** Reads at most `maxBytes + 1` bytes (one more reveals an overflow). */
  readFile(
    path: string,
    options: { maxBytes: number; signal: AbortSignal },
  ): Promise<Uint8Array>;
  /** At most `limit` entries of a directory, in platform order. */
  readDir(
    path: string,
    options: { limit: number; signal: AbortSignal },
  ): Promise<DirEntryInfo[]>;
  /** The host's values of these variables; unset or unreadable ones omitted. */
  readEnv(keys: readonly string[]): Record<string, string>;
  /**
   * Runs a child process to completion. On POSIX the child leads its own
   * process group; timeout, abort and normal exit kill the whole group.
   */
  spawn(request: SpawnRequest): Promise<SpawnResult>;
  /**
   * Creates one directory (not its parents). An existing entry is an
   * error (kind `failed`). Absent ⇒ `write_file` cannot create dirs.
   */
  mkdir?(path: string): Promise<void>;
  /**
   * Writes `data` to `dir/name` atomically: a temp file created
   * exclusively (`O_EXCL`, so never through a symlink) in `dir`, then
   * `rename`d over the target (which replaces a link, never follows it).
   * An existing target's permission bits are kept except its executable,
   * set-id and sticky bits, which no write leaves. Absent ⇒ `write_file`
   * is unavailable.
   */
  writeFileAtomic?(
    dir: string,
    name: string,
    data: Uint8Array,
    options: { signal: AbortSignal },
  ): Promise<void>;
  /**
   * Appends to an existing regular file without creating it. After the
   * open, the handle is `fstat`ed: not a regular file, a `fileId` other
   * than `expectedId`, or (with `refuseHardLinks`) a link count above 1 ⇒
   * nothing is written, kind `failed`. Absent ⇒ `append` is unavailable.
   */
  appendFile?(
    path: string,
    data: Uint8Array,
    options: {
      expectedId: string | undefined;
      refuseHardLinks: boolean;
      signal: AbortSignal;
    },
  ): Promise<void>;
  /**
   * Every A and AAAA answer for a name (an empty list when there are
   * none). Absent ⇒ `http_request` is unavailable for names.
   */
  resolveDns?(name: string, signal: AbortSignal): Promise<string[]>;
  /** Performs one HTTP request. Absent ⇒ `http_request` is unavailable. */
  fetch?(request: HttpRequest): Promise<HttpResponse>;
}
