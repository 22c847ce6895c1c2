/**
 * One chat scenario for the CLI tests: a temp project dir with its own
 * Relavium home, the files a run needs (cassette, agent, project config),
 * and the CLI run in that env and cwd: in-process (`main(argv, io)`) or as
 * a real `deno run cli.ts` child.
 */
import assert from "node:assert/strict";
import type { SessionEvent } from "../../../schema/event.ts";
import { openSqliteStore } from "../../../store/sqlite_store.ts";
import type { SessionStore } from "../../../store/store.ts";
import { ROOT, runDeno } from "../_child.ts";
import {
  parseEvents,
  runCli,
  type RunOptions,
  type RunResult,
  tempDir,
  write,
} from "../_helpers.ts";

/** A run's result with its parsed `--json` events. */
export interface ScenarioRun extends RunResult {
  /** The events of a `--json` run's stdout (parsed when read). */
  events: SessionEvent[];
}

/** Options of {@linkcode Scenario.run}: {@linkcode RunOptions} and the expected exit code. */
export interface ScenarioRunOptions extends RunOptions {
  /** The exit code the run must end with (checked, stderr as message). */
  code?: number;
}

/** Options of {@linkcode Scenario.child}. */
export interface ChildRunOptions {
  /** Written to its stdin, then closed (default empty). */
  stdin?: string;
  /** The `deno run` flags before `cli.ts` (default read, write and env, no prompt). */
  flags?: readonly string[];
  /** The whole environment (default the scenario's). */
  env?: Record<string, string>;
  /** The working folder (default the scenario's cwd). */
  cwd?: string;
  /** The exit code the child must end with (checked, stderr as message). */
  code?: number;
}

/** Options of {@linkcode scenario}. */
export interface ScenarioOptions {
  /** The runs' working folder, relative to the dir (default the dir). */
  cwd?: string;
  /** `RELAVIUM_HOME`, relative to the dir (default `home`). */
  home?: string;
  /**
   * Entries laid over the default env (`RELAVIUM_HOME=<dir>/home`,
   * `NO_COLOR=1`); an `undefined` entry removes one.
   */
  env?: Record<string, string | undefined>;
}

/** A project dir with its own home; disposed with the dir. */
export interface Scenario extends AsyncDisposable {
  /** The temp dir. */
  dir: string;
  /** The runs' working folder (the dir unless `cwd` was given). */
  cwd: string;
  /** `RELAVIUM_HOME`, `<dir>/home` unless the env says otherwise. */
  home: string;
  /** The runs' env (`RELAVIUM_HOME` under the dir, `NO_COLOR=1` by default). */
  env: Record<string, string>;
  /** Writes `text` at `path` under the cwd. */
  file(path: string, text: string): Promise<void>;
  /** Writes `.relavium/project.toml` under the cwd. */
  project(toml: string): Promise<void>;
  /** Runs `main(argv, io)` in the cwd with the scenario's env. */
  run(argv: string[], options?: ScenarioRunOptions): Promise<ScenarioRun>;
  /** Runs `deno run <flags> cli.ts <argv>` as a child, to its end. */
  child(argv: string[], options?: ChildRunOptions): Promise<ScenarioRun>;
  /** `chat-show <id> --json`, checked to exit 0, parsed. */
  show(id: string): Promise<Record<string, unknown>>;
  /** Opens the home's `history.db`, hands it to `use`, closes it. */
  store<T>(use: (store: SessionStore) => T): T;
}

/** The flags a child runs `cli.ts` with unless told otherwise. */
const CHILD_FLAGS = [
  "--no-prompt",
  "--allow-read",
  "--allow-write",
  "--allow-env",
];

function withEvents(r: RunResult): ScenarioRun {
  return {
    ...r,
    get events() {
      return parseEvents(r.stdout);
    },
  };
}

/** A fresh scenario: an empty temp project dir and home. */
export async function scenario(
  options: ScenarioOptions = {},
): Promise<Scenario> {
  const tmp = await tempDir();
  const dir = tmp.path;
  const cwd = options.cwd === undefined ? dir : `${dir}/${options.cwd}`;
  const env: Record<string, string> = {
    RELAVIUM_HOME: `${dir}/${options.home ?? "home"}`,
    NO_COLOR: "1",
  };
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  const home = env.RELAVIUM_HOME ?? `${dir}/${options.home ?? "home"}`;
  const run = async (
    argv: string[],
    runOptions: ScenarioRunOptions = {},
  ): Promise<ScenarioRun> => {
    const { code, ...rest } = runOptions;
    const r = await runCli(argv, { env, cwd, ...rest });
    if (code !== undefined) assert.equal(r.code, code, r.stderr);
    return withEvents(r);
  };
  return {
    dir,
    cwd,
    home,
    env,
    file: (path, text) => write(`${cwd}/${path}`, text),
    project: (toml) => write(`${cwd}/.relavium/project.toml`, toml),
    run,
    async child(argv, childOptions = {}) {
      const r = await runDeno(
        [
          "run",
          ...(childOptions.flags ?? CHILD_FLAGS),
          `${ROOT}cli.ts`,
          ...argv,
        ],
        {
          cwd: childOptions.cwd ?? cwd,
          env: childOptions.env ?? env,
          stdin: childOptions.stdin ?? "",
        },
      );
      if (childOptions.code !== undefined) {
        assert.equal(r.code, childOptions.code, r.stderr);
      }
      return withEvents(r);
    },
    async show(id) {
      const r = await run(["chat-show", id, "--json"], { code: 0 });
      return JSON.parse(r.stdout);
    },
    store(use) {
      const store = openSqliteStore(`${home}/history.db`, {
        clock: { now: () => 0 },
        ids: () => crypto.randomUUID(),
      });
      try {
        return use(store);
      } finally {
        store.close();
      }
    },
    [Symbol.asyncDispose]: () => tmp[Symbol.asyncDispose](),
  };
}

/** The event signatures of one answered text turn. */
export const TEXT_TURN: readonly string[] = [
  "session:turn_started",
  "agent:token",
  "cost:updated",
  "session:turn_completed",
];

/** A piped run of one text turn: started, the turn, cancelled at end of input. */
export const ONE_TURN_RUN: readonly string[] = [
  "session:started",
  ...TEXT_TURN,
  "session:cancelled",
];

/** The events of a turn's `read_file` round after `session:turn_started`. */
export const READ_ROUND: readonly string[] = [
  "cost:updated",
  "agent:tool_call:read_file",
  "agent:tool_result:read_file",
  "agent:token",
  "cost:updated",
  "session:turn_completed",
];

/** The first event of `type` in `list`. */
export function find<T extends SessionEvent["type"]>(
  list: readonly SessionEvent[],
  type: T,
): Extract<SessionEvent, { type: T }> | undefined {
  return list.find((e): e is Extract<SessionEvent, { type: T }> =>
    e.type === type
  );
}
