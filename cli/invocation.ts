/**
 * How the person ran this CLI, so that hints and usage errors name a
 * command they can type again: the words before the CLI's own arguments
 * (`deno run -A cli.ts`, `./relavium`), derived once, here. The real
 * terminal's io (`cli/io/io.ts`) hands it to commands as
 * `io.invocation`; a test's io names its own.
 *
 * @module
 */

/** A Deno permission kind the CLI may run under. */
export type PermissionKind =
  | "read"
  | "write"
  | "env"
  | "net"
  | "run"
  | "sys"
  | "ffi";

/** What the derivation reads (the real process by default). */
export interface ProcessFacts {
  /** The process's argv (`/proc/self/cmdline`), when readable. */
  cmdline(): string[] | undefined;
  /** The CLI's own arguments (`Deno.args`). */
  args: readonly string[];
  /** The runtime's executable (`Deno.execPath()`). */
  execPath: string;
  /** The main module's URL (`Deno.mainModule`). */
  mainModule: string;
  /** The process's working directory, when known. */
  cwd?: string;
  /**
   * Whether a permission is granted: the whole kind (`value` absent) or
   * one program (`run`) or interface (`sys`).
   */
  granted(kind: PermissionKind, value?: string): boolean;
}

/** The kinds in the order a `deno run` line usually lists them. */
const KINDS: readonly PermissionKind[] = [
  "read",
  "write",
  "env",
  "net",
  "run",
  "sys",
  "ffi",
];
/** Scoped grants worth probing: what the CLI itself runs and asks. */
const PROBES: Partial<Record<PermissionKind, readonly string[]>> = {
  run: ["git", "kill"],
  sys: ["hostname"],
};

/**
 * The permission flags of this process as far as they can be known: `-A`
 * when everything is granted, else each kind granted whole, the probed
 * programs and interfaces of a scoped `run`/`sys`, and `=…` for another
 * scoped grant (which only the person knows).
 */
function permissionFlags(facts: ProcessFacts): string[] {
  if (KINDS.every((k) => facts.granted(k))) return ["-A"];
  const flags: string[] = [];
  for (const kind of KINDS) {
    if (facts.granted(kind)) {
      flags.push(`--allow-${kind}`);
      continue;
    }
    const probes = PROBES[kind];
    if (probes === undefined) continue;
    const some = probes.filter((v) => facts.granted(kind, v));
    if (some.length > 0) flags.push(`--allow-${kind}=${some.join(",")}`);
  }
  return flags;
}

function scriptWord(mainModule: string, cwd: string | undefined): string {
  const path = decodeURIComponent(new URL(mainModule).pathname);
  const base = cwd === undefined ? undefined : `${cwd.replace(/\/$/, "")}/`;
  return shellWord(
    base !== undefined && path.startsWith(base)
      ? path.slice(base.length)
      : path,
  );
}

/**
 * A word as the shell reads it back: quoted when it holds anything but
 * safe characters.
 *
 * @param word The word.
 * @returns The word, single-quoted when needed.
 */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(word)
    ? word
    : `'${word.replaceAll("'", "'\\''")}'`;
}

/**
 * Derives the invocation from process facts: the argv words before the
 * CLI's arguments (readable under `-A` only); else the compiled binary's
 * name; else `deno run <flags> <script>` with the flags the permission
 * queries reveal and the script relative to the working directory;
 * `relavium` when nothing is known.
 *
 * @param facts What the process says of itself.
 * @returns The command prefix, shell-quoted.
 */
export function invocationOf(facts: ProcessFacts): string {
  const argv = facts.cmdline();
  if (argv !== undefined && argv.length > facts.args.length) {
    const tail = argv.slice(argv.length - facts.args.length);
    if (tail.every((a, i) => a === facts.args[i])) {
      return argv.slice(0, argv.length - facts.args.length).map(shellWord)
        .join(" ");
    }
  }
  const exec = facts.execPath.split(/[\\/]/).pop() ?? "";
  if (exec !== "" && !/^deno(\.exe)?$/i.test(exec)) return shellWord(exec);
  try {
    if (new URL(facts.mainModule).protocol !== "file:") return "relavium";
    return ["deno", "run", ...permissionFlags(facts)].join(" ") + " " +
      scriptWord(facts.mainModule, facts.cwd);
  } catch {
    return "relavium";
  }
}

/**
 * `/proc/self/cmdline` split into words. Deno lets only a process with
 * every permission read it, so it is read only then (never a prompt).
 */
function procCmdline(): string[] | undefined {
  try {
    const all = KINDS.every((name) =>
      Deno.permissions.querySync({ name }).state === "granted"
    );
    if (!all) return undefined;
    const words = Deno.readTextFileSync("/proc/self/cmdline").split("\0");
    if (words.at(-1) === "") words.pop();
    return words;
  } catch {
    return undefined;
  }
}

function cwdOf(): { cwd?: string } {
  try {
    return { cwd: Deno.cwd() };
  } catch {
    return {};
  }
}

/**
 * The invocation of this process.
 *
 * @returns E.g. `deno run -A cli.ts` or `relavium`.
 */
export function processInvocation(): string {
  try {
    return invocationOf({
      cmdline: procCmdline,
      args: Deno.args,
      execPath: Deno.execPath(),
      mainModule: Deno.mainModule,
      ...cwdOf(),
      granted(kind, value) {
        const d: Deno.PermissionDescriptor = kind === "run"
          ? { name: "run", ...(value === undefined ? {} : { command: value }) }
          : kind === "sys"
          ? {
            name: "sys",
            ...(value === undefined ? {} : { kind: value as "hostname" }),
          }
          : { name: kind };
        return Deno.permissions.querySync(d).state === "granted";
      },
    });
  } catch {
    return "relavium";
  }
}
