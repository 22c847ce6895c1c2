/**
 * File path arithmetic (join, resolve, dirname, basename, relative,
 * isAbsolute, normalize, sep) with the same results as `node:path`, for the
 * running platform: POSIX, or Windows (drive letters, UNC shares, both
 * separators, case-insensitive comparison in `relative`).
 *
 * It lives here so every room may import it (the stores too), and it exists
 * so that start-up loads no `node:*` module: the first `node:path`,
 * `node:url` or `node:util` import brings Deno's Node compatibility layer,
 * milliseconds a one-shot command does not need.
 *
 * @module
 */

/** The path operations of one platform. */
export interface PathOps {
  readonly sep: "/" | "\\";
  isAbsolute(path: string): boolean;
  normalize(path: string): string;
  join(...parts: string[]): string;
  resolve(...parts: string[]): string;
  dirname(path: string): string;
  basename(path: string, suffix?: string): string;
  relative(from: string, to: string): string;
}

interface Flavour {
  sep: "/" | "\\";
  isSep(c: string): boolean;
  /** The root of `path` ("", "/", "C:", "C:\\", "\\\\host\\share\\"). */
  root(path: string): string;
  /** Whether a root makes a path absolute. */
  absolute(root: string): boolean;
  fold(s: string): string;
}

const POSIX: Flavour = {
  sep: "/",
  isSep: (c) => c === "/",
  root: (p) => (p.startsWith("/") ? "/" : ""),
  absolute: (r) => r === "/",
  fold: (s) => s,
};

const UNC = /^[\\/]{2}([^\\/]+)[\\/]+([^\\/]+)[\\/]*/;

const WINDOWS: Flavour = {
  sep: "\\",
  isSep: (c) => c === "/" || c === "\\",
  root(p) {
    const unc = UNC.exec(p);
    if (unc !== null) return `\\\\${unc[1]}\\${unc[2]}\\`;
    if (/^[a-zA-Z]:/.test(p)) {
      return /^[a-zA-Z]:[\\/]/.test(p) ? `${p.slice(0, 2)}\\` : p.slice(0, 2);
    }
    return p.startsWith("/") || p.startsWith("\\") ? "\\" : "";
  },
  absolute: (r) => r.endsWith("\\"),
  fold: (s) => s.toLowerCase(),
};

function rootLength(f: Flavour, path: string): number {
  if (f === POSIX) return path.startsWith("/") ? 1 : 0;
  const unc = UNC.exec(path);
  if (unc !== null) return unc[0].length;
  if (/^[a-zA-Z]:[\\/]/.test(path)) return 3;
  if (/^[a-zA-Z]:/.test(path)) return 2;
  return path.startsWith("/") || path.startsWith("\\") ? 1 : 0;
}

/** The segments after the root, with "." and ".." worked out. */
function segments(f: Flavour, rest: string, absolute: boolean): string[] {
  const out: string[] = [];
  for (const part of rest.split(f === POSIX ? "/" : /[\\/]/)) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (!absolute) out.push("..");
    } else {
      out.push(part);
    }
  }
  return out;
}

function ops(f: Flavour): PathOps {
  const normalize = (path: string): string => {
    if (path === "") return ".";
    const root = f.root(path);
    const abs = f.absolute(root);
    const body = segments(f, path.slice(rootLength(f, path)), abs)
      .join(f.sep);
    const trailing = path.length > root.length &&
      f.isSep(path[path.length - 1] ?? "");
    if (body === "") {
      if (root === "") return trailing ? `.${f.sep}` : ".";
      return abs ? root : `${root}.`;
    }
    return `${root}${body}${trailing ? f.sep : ""}`;
  };
  const isAbsolute = (path: string): boolean =>
    f === POSIX ? path.startsWith("/") : f.absolute(f.root(path)) ||
      path.startsWith("/") || path.startsWith("\\");
  const resolve = (...parts: string[]): string => {
    // From the right up to the first absolute part (or the working
    // directory); its root stays as it is, the rest is worked out.
    const tail: string[] = [];
    let base = Deno.cwd();
    let i = parts.length - 1;
    for (; i >= 0; i--) {
      const part = parts[i] ?? "";
      if (part === "") continue;
      if (isAbsolute(part)) {
        base = part;
        break;
      }
      // A drive-relative part ("C:x") is taken as relative to the base.
      tail.unshift(f === POSIX ? part : part.replace(/^[a-zA-Z]:/, ""));
    }
    let root = f.root(base);
    if (root === "\\") {
      // Windows: a rooted path with no drive takes the drive of a part to
      // its left, or the working directory's.
      const drive = [...parts.slice(0, Math.max(i, 0)), Deno.cwd()]
        .map((p) => /^[a-zA-Z]:/.exec(p)?.[0])
        .find((d) => d !== undefined);
      if (drive !== undefined) root = `${drive}\\`;
    }
    const rest = [base.slice(rootLength(f, base)), ...tail].join(f.sep);
    return `${root}${segments(f, rest, true).join(f.sep)}`;
  };
  const dirname = (path: string): string => {
    // As `node:path`: the separator run before the last part is cut at its
    // last separator.
    if (path === "") return ".";
    const rootLen = rootLength(f, path);
    const offset = f === POSIX ? 1 : rootLen;
    let end = -1;
    let matchedSep = true;
    for (let i = path.length - 1; i >= offset; i--) {
      if (f.isSep(path[i] ?? "")) {
        if (!matchedSep) {
          end = i;
          break;
        }
      } else {
        matchedSep = false;
      }
    }
    if (end === -1) return rootLen > 0 ? path.slice(0, rootLen) : ".";
    if (f === POSIX && rootLen === 1 && end === 1) return "//";
    return path.slice(0, end);
  };
  const basename = (path: string, suffix?: string): string => {
    const rootLen = f !== POSIX && /^[a-zA-Z]:/.test(path) ? 2 : 0;
    let end = path.length;
    while (end > rootLen && f.isSep(path[end - 1] ?? "")) end--;
    let start = end;
    while (start > rootLen && !f.isSep(path[start - 1] ?? "")) start--;
    const base = path.slice(start, end);
    return suffix !== undefined && suffix !== base && base.endsWith(suffix)
      ? base.slice(0, base.length - suffix.length)
      : base;
  };
  const relative = (from: string, to: string): string => {
    const a = resolve(from);
    const b = resolve(to);
    if (f.fold(a) === f.fold(b)) return "";
    const ra = f.root(a);
    const rb = f.root(b);
    if (f.fold(ra) !== f.fold(rb)) return b;
    const sa = segments(f, a.slice(ra.length), true);
    const sb = segments(f, b.slice(rb.length), true);
    let i = 0;
    while (
      i < sa.length && i < sb.length &&
      f.fold(sa[i] ?? "") === f.fold(sb[i] ?? "")
    ) i++;
    return [...sa.slice(i).map(() => ".."), ...sb.slice(i)].join(f.sep);
  };
  const join = (...parts: string[]): string => {
    const kept = parts.filter((p) => p !== "");
    if (kept.length === 0) return ".";
    let joined = kept.join(f.sep);
    const first = kept[0] ?? "";
    // Windows: separators that only the joining put first must not make a
    // UNC root ("\\\\host\\share") out of a path that did not start with one.
    if (f !== POSIX && !UNC.test(first)) {
      let n = 0;
      while (n < joined.length && f.isSep(joined[n] ?? "")) n++;
      if (n >= 2) joined = `\\${joined.slice(n)}`;
    }
    return normalize(joined);
  };
  return {
    sep: f.sep,
    isAbsolute,
    normalize,
    join,
    resolve,
    dirname,
    basename,
    relative,
  };
}

/** POSIX paths, whatever the platform. */
export const posixPaths: PathOps = ops(POSIX);
/** Windows paths, whatever the platform. */
export const windowsPaths: PathOps = ops(WINDOWS);

const here: PathOps = Deno.build.os === "windows" ? windowsPaths : posixPaths;

/** The running platform's path separator. */
export const sep: "/" | "\\" = here.sep;
/** Whether `path` is absolute. */
export const isAbsolute: (path: string) => boolean = here.isAbsolute;
/** `path` with "." and ".." worked out and repeated separators merged. */
export const normalize: (path: string) => string = here.normalize;
/** The parts joined with the separator, then normalized. */
export const join: (...parts: string[]) => string = here.join;
/** An absolute path: the parts from the right up to the first absolute one, on the working directory. */
export const resolve: (...parts: string[]) => string = here.resolve;
/** The folder part of `path`. */
export const dirname: (path: string) => string = here.dirname;
/** The last part of `path`, less `suffix` when it ends with it. */
export const basename: (path: string, suffix?: string) => string =
  here.basename;
/** The path from `from` to `to`, both resolved first. */
export const relative: (from: string, to: string) => string = here.relative;
