/**
 * Project root discovery: the nearest
 * ancestor of the start directory (inclusive) holding a `.relavium/`
 * directory, skipping the user's global folder and stopping at `$HOME`.
 *
 * @module
 */
import { dirname, join, resolve } from "../../schema/paths.ts";

/**
 * Options of {@linkcode findProjectRoot}.
 */
export interface DiscoverOptions {
  /** `$HOME`: the search does not go above it (and never uses `~/.relavium`). */
  userHome?: string;
  /** The global folder in use (`RELAVIUM_HOME` or `~/.relavium`): never a project folder. */
  globalDir?: string;
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch {
    return false;
  }
}

/**
 * Finds the project root above `start`.
 *
 * @param start The effective working directory (absolute).
 * @param options The home and global folders.
 * @returns The project root, or `undefined` when there is none.
 */
export async function findProjectRoot(
  start: string,
  options: DiscoverOptions = {},
): Promise<string | undefined> {
  const home = options.userHome === undefined
    ? undefined
    : resolve(options.userHome);
  const skip = new Set<string>();
  if (options.globalDir !== undefined) skip.add(resolve(options.globalDir));
  if (home !== undefined) skip.add(join(home, ".relavium"));
  let dir = resolve(start);
  for (;;) {
    const candidate = join(dir, ".relavium");
    if (!skip.has(candidate) && await isDirectory(candidate)) return dir;
    if (dir === home) return undefined;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}
