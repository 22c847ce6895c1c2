/**
 * One chat scenario for the CLI tests: a temp project dir with its own
 * Relavium home, the files a run needs (cassette, agent, project config),
 * and `main(argv, io)` run in-process with that env and cwd.
 */
import assert from "node:assert/strict";
import type { SessionEvent } from "../../../schema/event.ts";
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
export interface ScenarioRunOptions extends Omit<RunOptions, "cwd"> {
  /** The exit code the run must end with (checked, stderr as message). */
  code?: number;
}

/** A project dir with its own home; disposed with the dir. */
export interface Scenario extends AsyncDisposable {
  /** The project dir (the runs' cwd). */
  dir: string;
  /** `RELAVIUM_HOME` under the dir, `NO_COLOR=1`. */
  env: Record<string, string>;
  /** Writes `text` at `path` under the dir. */
  file(path: string, text: string): Promise<void>;
  /** Writes `.relavium/project.toml`. */
  project(toml: string): Promise<void>;
  /** Runs `main(argv, io)` in the dir with the scenario's env. */
  run(argv: string[], options?: ScenarioRunOptions): Promise<ScenarioRun>;
  /** `chat-show <id> --json`, checked to exit 0, parsed. */
  show(id: string): Promise<Record<string, unknown>>;
}

/** A fresh scenario: an empty temp project dir and home. */
export async function scenario(): Promise<Scenario> {
  const tmp = await tempDir();
  const dir = tmp.path;
  const env = { RELAVIUM_HOME: `${dir}/home`, NO_COLOR: "1" };
  const run = async (
    argv: string[],
    options: ScenarioRunOptions = {},
  ): Promise<ScenarioRun> => {
    const { code, ...rest } = options;
    const r = await runCli(argv, { env, ...rest, cwd: dir });
    if (code !== undefined) assert.equal(r.code, code, r.stderr);
    return {
      ...r,
      get events() {
        return parseEvents(r.stdout);
      },
    };
  };
  return {
    dir,
    env,
    file: (path, text) => write(`${dir}/${path}`, text),
    project: (toml) => write(`${dir}/.relavium/project.toml`, toml),
    run,
    async show(id) {
      const r = await run(["chat-show", id, "--json"], { code: 0 });
      return JSON.parse(r.stdout);
    },
    [Symbol.asyncDispose]: () => tmp[Symbol.asyncDispose](),
  };
}

/** The first event of `type` in `list`. */
export function find<T extends SessionEvent["type"]>(
  list: readonly SessionEvent[],
  type: T,
): Extract<SessionEvent, { type: T }> | undefined {
  return list.find((e): e is Extract<SessionEvent, { type: T }> =>
    e.type === type
  );
}
