/**
 * Lexical path helpers for the jail, per path flavour. Pure: no effects,
 * no process cwd (every relative path is joined to an absolute base).
 *
 * @module
 */
import { posix, win32 } from "node:path";

/** Path flavour of a host. */
export type PathOs = "posix" | "windows";

/** The platform separator. */
export function sepOf(os: PathOs): string {
  return os === "windows" ? "\\" : "/";
}

/** `\\server\share` (both flavours) or `//server/share` (Windows). */
export function isUncPath(path: string, os: PathOs): boolean {
  if (path.startsWith("\\\\")) return true;
  return os === "windows" && /^[\\/]{2}/.test(path);
}

/** `C:foo` on Windows: relative to a per-drive cwd we must never read. */
export function isDriveRelative(path: string, os: PathOs): boolean {
  return os === "windows" && /^[a-zA-Z]:(?![\\/])/.test(path);
}

/** Whether the path is absolute in this flavour. */
export function isAbsolutePath(path: string, os: PathOs): boolean {
  return os === "windows" ? win32.isAbsolute(path) : posix.isAbsolute(path);
}

/**
 * Lexically normalised absolute path: `path` if absolute, else joined to
 * `base` (which must be absolute). `..` segments are folded here.
 */
export function absolutize(path: string, base: string, os: PathOs): string {
  const p = os === "windows" ? win32 : posix;
  const joined = p.isAbsolute(path) ? path : p.join(base, path);
  const out = p.normalize(joined);
  return out.length > 1 && (out.endsWith("/") || out.endsWith("\\")) &&
      !/^[a-zA-Z]:[\\/]$/.test(out)
    ? out.slice(0, -1)
    : out;
}

/** Joins an absolute directory and one or more relative segments. */
export function joinPath(os: PathOs, base: string, ...rest: string[]): string {
  return (os === "windows" ? win32 : posix).join(base, ...rest);
}

function fold(path: string, os: PathOs): string {
  return os === "windows" ? path.toLowerCase().replaceAll("/", "\\") : path;
}

/**
 * Separator-aware containment: `child === root` or `child` starts with
 * `root + SEP` (a bare prefix test would let `/ws2` pass for `/ws`).
 */
export function isWithin(child: string, root: string, os: PathOs): boolean {
  const c = fold(child, os);
  const r = fold(root, os);
  if (c === r) return true;
  const sep = sepOf(os);
  const prefix = r.endsWith(sep) ? r : r + sep;
  return c.startsWith(prefix);
}

/** Path segments (empty ones dropped; both separators on Windows). */
export function segmentsOf(path: string, os: PathOs): string[] {
  const parts = os === "windows" ? path.split(/[\\/]/) : path.split("/");
  return parts.filter((s) => s !== "");
}

/** `child` relative to `root` with `/` separators (`""` for the root). */
export function relativeSlash(root: string, child: string, os: PathOs): string {
  const p = os === "windows" ? win32 : posix;
  return segmentsOf(p.relative(root, child), os).join("/");
}
