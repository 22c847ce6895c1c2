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
 *   An executable file is not appended to in place (Deno has no `fchmod`):
 *   its content plus the new text is written whole, as `writeAtomic` does.
 * - No write leaves an executable bit: an existing file's mode is kept
 *   without its `x`, set-id and sticky bits.
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

/**
 * Never leaves an executable bit (nor set-id or sticky bits) on what is
 * written: a program the model writes must not run by itself.
 */
const WRITE_MODE_MASK = 0o666;

/**
 * Temp file in `dir` + rename over `dir/name`; keeps an existing mode
 * without its executable bits (a new file gets the default `0666 & ~umask`).
 */
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
      ...(mode === null ? {} : { mode: mode & WRITE_MODE_MASK }),
    });
    created = true;
    if (mode !== null && !options.windows) {
      await Deno.chmod(temp, mode & WRITE_MODE_MASK);
    }
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
    file = await Deno.open(path, { read: true, write: true, append: true });
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
    if (info.mode !== null && (info.mode & 0o111) !== 0) {
      // Appending would keep the bits: rewrite the whole file instead.
      const old = await readAll(file, info.size, options.signal);
      file.close();
      file = undefined;
      const whole = new Uint8Array(old.length + data.length);
      whole.set(old);
      whole.set(data, old.length);
      const cut = path.lastIndexOf("/");
      await writeAtomic(path.slice(0, cut + 1), path.slice(cut + 1), whole, {
        signal: options.signal,
        windows: false,
      });
      return;
    }
    let at = 0;
    while (at < data.length) at += await file.write(data.subarray(at));
  } catch (e) {
    throw wrap(e);
  } finally {
    file?.close();
  }
}

async function readAll(
  file: Deno.FsFile,
  size: number,
  signal: AbortSignal,
): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  while (true) {
    if (signal.aborted) throw new ToolEffectsError("aborted");
    const buf = new Uint8Array(Math.max(64 * 1024, size - total));
    const n = await file.read(buf);
    if (n === null) break;
    chunks.push(buf.subarray(0, n));
    total += n;
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
