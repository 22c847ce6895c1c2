/**
 * Private: whether a tool's effect started. The pipeline hands a tool
 * this view of the effect host; a call that writes, creates, runs or
 * sends marks the effect started (a spawn whose program is not found
 * started nothing). Reads, stats and DNS lookups never do.
 *
 * @module
 */
import { type ToolEffects, ToolEffectsError } from "./effects.ts";

/** A host view and whether an effect went through it. */
export interface WatchedEffects {
  /** The host as the tool sees it. */
  host: ToolEffects;
  /** Whether a write, a directory, a process or a request was started. */
  readonly started: boolean;
}

/**
 * Wraps a host so that the pipeline knows whether a failed call may have
 * left an effect behind.
 *
 * @param host The real host.
 * @returns The watched view.
 */
export function watchEffects(host: ToolEffects): WatchedEffects {
  let started = false;
  const effect = <A extends unknown[], R>(
    run: (...args: A) => Promise<R>,
  ): (...args: A) => Promise<R> =>
  (...args) => {
    started = true;
    return run(...args);
  };
  const { mkdir, writeFileAtomic, appendFile, resolveDns, fetch } = host;
  const view: ToolEffects = {
    os: host.os,
    realPath: (path) => host.realPath(path),
    lstat: (path) => host.lstat(path),
    stat: (path) => host.stat(path),
    readFile: (path, options) => host.readFile(path, options),
    readDir: (path, options) => host.readDir(path, options),
    readEnv: (keys) => host.readEnv(keys),
    async spawn(request) {
      const before = started;
      started = true;
      try {
        return await host.spawn(request);
      } catch (e) {
        // The program was not found: nothing ran.
        if (e instanceof ToolEffectsError && e.kind === "not_found") {
          started = before;
        }
        throw e;
      }
    },
    ...(mkdir === undefined ? {} : { mkdir: effect(mkdir.bind(host)) }),
    ...(writeFileAtomic === undefined
      ? {}
      : { writeFileAtomic: effect(writeFileAtomic.bind(host)) }),
    ...(appendFile === undefined
      ? {}
      : { appendFile: effect(appendFile.bind(host)) }),
    ...(resolveDns === undefined
      ? {}
      : { resolveDns: (name, signal) => resolveDns.call(host, name, signal) }),
    ...(fetch === undefined ? {} : { fetch: effect(fetch.bind(host)) }),
  };
  return {
    host: view,
    get started(): boolean {
      return started;
    },
  };
}
