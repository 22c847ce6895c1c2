/**
 * Child-process environment policy: the base keys copied
 * from the host, and the declared keys that are always refused.
 *
 * @module
 */

const POSIX_BASE = [
  "PATH",
  "HOME",
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
  "TZ",
  "TMPDIR",
  "TERM",
] as const;

const WINDOWS_BASE = [
  "PATH",
  "Path",
  "PATHEXT",
  "SystemRoot",
  "SystemDrive",
  "ComSpec",
  "windir",
  "TEMP",
  "TMP",
  "USERPROFILE",
  "APPDATA",
  "LOCALAPPDATA",
  "ProgramData",
  "ProgramFiles",
  "NUMBER_OF_PROCESSORS",
  "OS",
] as const;

const REFUSED_KEYS: ReadonlySet<string> = new Set([
  "NODE_OPTIONS",
  "NODE_PATH",
  "NODE_V8_COVERAGE",
  "PERL5LIB",
  "PERL5OPT",
  "RUBYLIB",
  "RUBYOPT",
  "JAVA_TOOL_OPTIONS",
  "_JAVA_OPTIONS",
  "JDK_JAVA_OPTIONS",
  "CLASSPATH",
  "BASH_ENV",
  "ENV",
  "IFS",
  "HOME",
  "XDG_CONFIG_HOME",
  "USERPROFILE",
  "HOMEDRIVE",
  "HOMEPATH",
  "APPDATA",
  "LOCALAPPDATA",
  "PATH",
]);

const REFUSED_PREFIXES = ["DYLD_", "LD_", "GIT_", "PYTHON", "DENO_"] as const;

/**
 * The host variables a child process inherits (everything else is
 * cleared).
 *
 * @param os Path flavour of the host.
 * @returns Variable names.
 */
export function baseEnvKeys(os: "posix" | "windows"): readonly string[] {
  return os === "windows" ? WINDOWS_BASE : POSIX_BASE;
}

/**
 * Whether a config-declared variable is refused (case-insensitive):
 * loader and interpreter hooks, home/path overrides, and the `DYLD_`,
 * `LD_`, `GIT_`, `PYTHON`, `DENO_` prefixes.
 *
 * @param key The declared name.
 * @returns `true` when refused.
 */
export function isRefusedEnvKey(key: string): boolean {
  const upper = key.toUpperCase();
  return REFUSED_KEYS.has(upper) ||
    REFUSED_PREFIXES.some((p) => upper.startsWith(p));
}

/**
 * The separator of the entries of a `PATH` value.
 *
 * @param os Path flavour.
 * @returns `;` on Windows, `:` elsewhere.
 */
export function pathListSeparator(os: "posix" | "windows"): string {
  return os === "windows" ? ";" : ":";
}

/**
 * Keeps only the absolute entries of a `PATH` value, so a child never
 * resolves a program from its working directory (an empty entry or `.`
 * in the host's `PATH` would run a `git` the model wrote into the
 * workspace).
 *
 * @param value The host's `PATH`.
 * @param os Path flavour (`:` or `;` separated).
 * @returns The filtered value.
 */
export function absolutePathEntries(
  value: string,
  os: "posix" | "windows",
): string {
  const sep = pathListSeparator(os);
  const absolute = os === "windows"
    ? (e: string): boolean => /^[a-zA-Z]:[\\/]/.test(e)
    : (e: string): boolean => e.startsWith("/");
  return value.split(sep).filter(absolute).join(sep);
}

/**
 * The environment of a child process: the host's base keys (with `PATH`
 * reduced to its absolute entries) plus the declared variables.
 *
 * @param base The host's values of `baseEnvKeys(os)`.
 * @param declared Config-declared variables (already checked).
 * @param os Path flavour.
 * @returns The complete child environment.
 */
export function childEnv(
  base: Readonly<Record<string, string>>,
  declared: Readonly<Record<string, string>> = {},
  os: "posix" | "windows" = "posix",
): Record<string, string> {
  const out: Record<string, string> = { ...base, ...declared };
  for (const key of ["PATH", "Path"]) {
    const v = base[key];
    if (v !== undefined) out[key] = absolutePathEntries(v, os);
  }
  return out;
}
