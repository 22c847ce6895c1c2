/**
 * The protected-write and sensitive-read floors: they
 * hold in every mode and tier, for tools, `@` injection and listings.
 * Pure name tests on lexical or real paths.
 *
 * @module
 */
import { isWithin, segmentsOf } from "./_path.ts";

/** This tool's own config/data directory name (upstream: `.relavium`). */
const OWN_DIR = ".relavium";

const PROTECTED_SEGMENTS: ReadonlySet<string> = new Set([
  ".git",
  ".ssh",
  OWN_DIR,
]);

const PROTECTED_BASENAMES: ReadonlySet<string> = new Set([
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".bash_logout",
  ".bash_aliases",
  ".profile",
  ".zshrc",
  ".zprofile",
  ".zshenv",
  ".zlogin",
  ".zlogout",
  ".cshrc",
  ".tcshrc",
  ".kshrc",
  ".login",
  ".xprofile",
  ".xinitrc",
  ".xsession",
  ".gitconfig",
  // direnv runs it on entering the folder (after its own approval).
  ".envrc",
  "config.fish",
  "profile.ps1",
  "microsoft.powershell_profile.ps1",
]);

const SENSITIVE_SEGMENTS: ReadonlySet<string> = new Set([
  ".ssh",
  ".aws",
  ".env",
  OWN_DIR,
]);

const SENSITIVE_BASENAMES: ReadonlySet<string> = new Set([
  ".env",
  ".gitconfig",
  ".git-credentials",
  ".netrc",
  ".npmrc",
  ".pypirc",
  ".pgpass",
  ".envrc",
  ".dockercfg",
]);

/**
 * Folds one path segment for floor tests: lowercase, drop everything from
 * the first `:` (NTFS alternate streams), strip trailing dots and spaces.
 *
 * @param name One path segment.
 * @returns The folded name.
 */
export function foldName(name: string): string {
  let n = name.toLowerCase();
  const colon = n.indexOf(":");
  if (colon >= 0) n = n.slice(0, colon);
  let end = n.length;
  while (end > 0 && (n[end - 1] === "." || n[end - 1] === " ")) end--;
  return n.slice(0, end);
}

/**
 * Options of the floor tests.
 */
export interface FloorOptions {
  /** Path flavour. */
  os: "posix" | "windows";
  /** Absolute config/data/store dirs of this tool (e.g. `RELAVIUM_HOME`). */
  ownDirs?: readonly string[];
}

function inOwnDirs(path: string, options: FloorOptions): boolean {
  return (options.ownDirs ?? []).some((d) => isWithin(path, d, options.os));
}

/**
 * Whether writing `path` hits the protected-write floor: a `.git`, `.ssh`
 * or own-config segment, a shell/profile basename, or a configured own dir.
 *
 * @param path A lexical or real path (absolute or relative).
 * @param options Path flavour and own dirs.
 * @returns `true` when protected.
 */
export function isProtectedPath(path: string, options: FloorOptions): boolean {
  if (inOwnDirs(path, options)) return true;
  const segs = segmentsOf(path, options.os).map(foldName);
  if (segs.some((s) => PROTECTED_SEGMENTS.has(s))) return true;
  const base = segs.at(-1);
  return base !== undefined && PROTECTED_BASENAMES.has(base);
}

/**
 * Whether reading `path` hits the sensitive-read floor: `.ssh`, `.aws`,
 * `.env` or own-config segments; credential basenames (`.env`, `.env.*`,
 * `.netrc`, …); `config.json` under `.docker`; `config` under a segment
 * that is or ends in `.git`; `credentials` under a `git` segment.
 *
 * @param path A lexical or real path (absolute or relative).
 * @param options Path flavour and own dirs.
 * @returns `true` when sensitive.
 */
export function isSensitivePath(path: string, options: FloorOptions): boolean {
  if (inOwnDirs(path, options)) return true;
  const segs = segmentsOf(path, options.os).map(foldName);
  if (segs.some((s) => SENSITIVE_SEGMENTS.has(s))) return true;
  const base = segs.at(-1);
  if (base === undefined) return false;
  if (SENSITIVE_BASENAMES.has(base) || base.startsWith(".env.")) return true;
  const parents = segs.slice(0, -1);
  if (base === "config.json" && parents.includes(".docker")) return true;
  if (base === "config" && parents.some((s) => s.endsWith(".git"))) {
    return true;
  }
  return base === "credentials" && parents.includes("git");
}
