/**
 * Launchers: programs that run other programs, or write any path, through
 * their arguments. A glob on one of them (`find *`, `git log *`) allows
 * whatever its arguments can do, so such a glob is refused; an exact entry
 * (`git status`) names one program doing one thing and stays allowed.
 *
 * A glob "is on a launcher" when its pattern holds `*` or `?` and its first
 * token is a launcher (compared by base name, lower case, without `.exe`
 * or a version suffix: `/usr/bin/python3.12` is `python`), or when its
 * first token itself holds a wildcard (it may name any program).
 *
 * @module
 */
import { firstToken } from "./_command.ts";

const SHELL = "a shell: runs any command line it is given";
const INTERPRETER = "an interpreter: runs any code given with -c or -e";
const RUNNER = "runs the program named in its arguments";
const PACKAGE = "a build tool or package manager: runs scripts and hooks";
const WRITER = "writes, moves or deletes any path named in its arguments";
const EDITOR = "an editor or pager: runs shell commands from its arguments";

/** Launchers by base name, with the reason a glob on each is refused. */
const LAUNCHERS: Readonly<Record<string, string>> = {
  sh: SHELL,
  bash: SHELL,
  zsh: SHELL,
  fish: SHELL,
  dash: SHELL,
  ksh: SHELL,
  mksh: SHELL,
  csh: SHELL,
  tcsh: SHELL,
  ash: SHELL,
  busybox: SHELL,
  pwsh: SHELL,
  powershell: SHELL,
  cmd: SHELL,
  python: INTERPRETER,
  pypy: INTERPRETER,
  node: INTERPRETER,
  nodejs: INTERPRETER,
  deno: INTERPRETER,
  bun: INTERPRETER,
  ruby: INTERPRETER,
  perl: INTERPRETER,
  php: INTERPRETER,
  lua: INTERPRETER,
  luajit: INTERPRETER,
  tclsh: INTERPRETER,
  rscript: INTERPRETER,
  julia: INTERPRETER,
  osascript: INTERPRETER,
  java: INTERPRETER,
  awk: "runs commands with system() and writes files with print >",
  gawk: "runs commands with system() and writes files with print >",
  mawk: "runs commands with system() and writes files with print >",
  nawk: "runs commands with system() and writes files with print >",
  sed: "runs commands with the e command and writes files with w",
  gsed: "runs commands with the e command and writes files with w",
  env: RUNNER,
  xargs: RUNNER,
  sudo: RUNNER,
  doas: RUNNER,
  su: RUNNER,
  nice: RUNNER,
  nohup: RUNNER,
  timeout: RUNNER,
  time: RUNNER,
  stdbuf: RUNNER,
  ionice: RUNNER,
  chrt: RUNNER,
  taskset: RUNNER,
  setsid: RUNNER,
  unshare: RUNNER,
  nsenter: RUNNER,
  chroot: RUNNER,
  flock: RUNNER,
  watch: RUNNER,
  strace: RUNNER,
  ltrace: RUNNER,
  gdb: RUNNER,
  script: RUNNER,
  expect: RUNNER,
  parallel: RUNNER,
  exec: RUNNER,
  npx: RUNNER,
  bunx: RUNNER,
  pnpx: RUNNER,
  uvx: RUNNER,
  pipx: RUNNER,
  find: "runs programs with -exec and deletes with -delete",
  fd: "runs programs with --exec",
  git:
    "runs programs through -c alias.<x>=!…, hooks and config, and writes any path with --output",
  hg: "runs programs through --config hooks and aliases",
  tar: "runs programs with --checkpoint-action=exec and writes any path",
  zip: "runs programs with --unzip-command and writes any path",
  unzip: "writes any path with -d",
  cpio: "writes any path",
  rsync: "runs programs with -e and writes any path",
  scp: "runs programs with -o ProxyCommand and writes any path",
  ssh: "runs commands remotely and locally (ProxyCommand, LocalCommand)",
  curl: "writes any path with -o and reads any file with -d @file",
  wget: "writes any path with -O",
  make: PACKAGE,
  cmake: PACKAGE,
  ninja: PACKAGE,
  just: PACKAGE,
  task: PACKAGE,
  npm: PACKAGE,
  pnpm: PACKAGE,
  yarn: PACKAGE,
  pip: PACKAGE,
  uv: PACKAGE,
  poetry: PACKAGE,
  cargo: PACKAGE,
  go: PACKAGE,
  gradle: PACKAGE,
  gradlew: PACKAGE,
  mvn: PACKAGE,
  rake: PACKAGE,
  bundle: PACKAGE,
  gem: PACKAGE,
  composer: PACKAGE,
  dotnet: PACKAGE,
  apt: PACKAGE,
  "apt-get": PACKAGE,
  brew: PACKAGE,
  docker: "runs any container with any mount",
  podman: "runs any container with any mount",
  kubectl: "runs commands in containers (exec)",
  gcc: "writes any path with -o and loads plugins",
  cc: "writes any path with -o and loads plugins",
  clang: "writes any path with -o and loads plugins",
  rustc: "writes any path with -o",
  cp: WRITER,
  mv: WRITER,
  rm: WRITER,
  ln: WRITER,
  dd: WRITER,
  tee: WRITER,
  install: WRITER,
  touch: WRITER,
  truncate: WRITER,
  chmod: WRITER,
  chown: WRITER,
  mkdir: WRITER,
  shred: WRITER,
  sort: "writes any path with -o",
  patch: WRITER,
  sqlite3: "runs commands with .shell and writes any path",
  vi: EDITOR,
  vim: EDITOR,
  nvim: EDITOR,
  emacs: EDITOR,
  nano: EDITOR,
  ed: EDITOR,
  ex: EDITOR,
  less: EDITOR,
  more: EDITOR,
  man: EDITOR,
  crontab: "schedules any command",
  at: "schedules any command",
  "systemd-run": RUNNER,
};

/**
 * The base name a program is compared by: last path segment, lower case,
 * without `.exe` and a trailing version (`python3.12` → `python`).
 *
 * @param program A program name or path.
 * @returns Its base name.
 */
export function launcherBase(program: string): string {
  const last = program.split(/[\\/]/).pop() ?? program;
  return last.toLowerCase().replace(/\.exe$/, "").replace(
    /(?<=[a-z])[-_.]?\d+(\.\d+)*$/,
    "",
  );
}

/**
 * Why a program is a launcher.
 *
 * @param program A program name or path.
 * @returns The reason, or `undefined` for a program that is not one.
 */
export function launcherReason(program: string): string | undefined {
  const base = launcherBase(program);
  return Object.hasOwn(LAUNCHERS, base) ? LAUNCHERS[base] : undefined;
}

function hasWildcard(s: string): boolean {
  return s.includes("*") || s.includes("?");
}

/**
 * Why an `allowed_command_globs` entry is refused.
 *
 * @param glob The pattern.
 * @returns The reason (what the glob would allow), or `undefined` when it
 * is acceptable.
 */
export function launcherGlobProblem(glob: string): string | undefined {
  if (!hasWildcard(glob)) return undefined;
  const first = firstToken(glob);
  if (first === undefined || hasWildcard(first)) {
    return "its program is a wildcard, so it matches every program";
  }
  const reason = launcherReason(first);
  return reason === undefined
    ? undefined
    : `${
      launcherBase(first)
    } ${reason}; list exact commands in allowed_commands instead`;
}

/**
 * The risk of one allowlist entry that is allowed, in one line.
 *
 * @param entry The command line or pattern.
 * @param glob Whether it is an `allowed_command_globs` pattern.
 * @returns What the entry lets the model do.
 */
export function allowlistEntryRisk(entry: string, glob: boolean): string {
  const first = firstToken(entry) ?? entry;
  const reason = launcherReason(first);
  if (reason !== undefined) {
    return `${
      launcherBase(first)
    } ${reason}: only this exact line is allowed, and the program still reads its own config and the files it is pointed at`;
  }
  return glob
    ? `${first} with any arguments matching the pattern (the files it reads or writes are not jailed)`
    : `${first} with exactly these arguments`;
}
