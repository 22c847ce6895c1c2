/**
 * Private: the write effects of the Deno host (`write_file`).
 *
 * - `mkdir` creates one level and fails on an existing entry (a dangling
 *   symlink included), so the jail re-resolves every level it created.
 * - `writeFileAtomic` creates a temp file with `createNew` (`O_EXCL`:
 *   never through a symlink) in the target's directory, writes, then
 *   `rename`s it over the target (`rename` replaces a final symlink or
 *   hard link, never writes through it).
 * - `appendFile` opens without `create`, then `fstat`s the handle and
 *   compares it with the identity the jail `lstat`ed (Deno has no
 *   `O_NOFOLLOW`): a swapped-in symlink or another file writes nothing.
 *
 * @module
 */
import { wrap } from "./_errors.ts";
import { ToolEffectsError } from "../effects.ts";

/** One directory level; an existing entry is an error. */
export async function mkdirOne(path: string): Promise<void> {
  try {
    await Deno.mkdir(path);
  } catch (e) {
    throw wrap(e);
  }
}

function joinDir(dir: string, name: string, windows: boolean): string {
  const sep = windows ? "\\" : "/";
  return dir.endsWith("/") || dir.endsWith("\\")
    ? `${dir}${name}`
    : `${dir}${sep}${name}`;
}

/** Temp file in `dir` + rename over `dir/name`; keeps an existing mode. */
export async function writeAtomic(
  dir: string,
  name: string,
  data: Uint8Array,
  options: { signal: AbortSignal; windows: boolean },
): Promise<void> {
  const target = joinDir(dir, name, options.windows);
  const temp = joinDir(
    dir,
    `.${name}.${crypto.randomUUID().slice(0, 8)}.tmp`,
    options.windows,
  );
  let mode: number | null = null;
  try {
    const info = await Deno.lstat(target);
    if (info.isFile) mode = info.mode;
  } catch {
    // a new file
  }
  let created = false;
  try {
    if (options.signal.aborted) throw new ToolEffectsError("aborted");
    await Deno.writeFile(temp, data, {
      createNew: true,
      ...(mode === null ? {} : { mode: mode & 0o777 }),
    });
    created = true;
    if (mode !== null && !options.windows) await Deno.chmod(temp, mode & 0o777);
    if (options.signal.aborted) throw new ToolEffectsError("aborted");
    await Deno.rename(temp, target);
    created = false;
  } catch (e) {
    throw wrap(e);
  } finally {
    if (created) await Deno.remove(temp).catch(() => undefined);
  }
}

/** Appends to an existing regular file whose identity is unchanged. */
export async function appendChecked(
  path: string,
  data: Uint8Array,
  options: {
    expectedId: string | undefined;
    refuseHardLinks: boolean;
    signal: AbortSignal;
  },
): Promise<void> {
  let file: Deno.FsFile | undefined;
  try {
    if (options.signal.aborted) throw new ToolEffectsError("aborted");
    file = await Deno.open(path, { write: true, append: true });
    const info = await file.stat();
    const id = info.ino === null ? undefined : `${info.dev}:${info.ino}`;
    const swapped = options.expectedId !== undefined &&
      id !== options.expectedId;
    const linked = options.refuseHardLinks && info.nlink !== null &&
      info.nlink > 1;
    if (!info.isFile || swapped || linked) {
      throw new ToolEffectsError("failed", {
        cause: new Error("the file changed between the check and the write"),
      });
    }
    let at = 0;
    while (at < data.length) at += await file.write(data.subarray(at));
  } catch (e) {
    throw wrap(e);
  } finally {
    file?.close();
  }
}
