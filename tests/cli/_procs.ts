/**
 * Finding a test's processes by marker arguments (e.g. `sleep 37.31`) in
 * `/proc/<pid>/cmdline`, for the tests that check a killed command left
 * nothing behind. Deno needs `--allow-all` to read `/proc` itself, so
 * `grep` scans it (a pattern like `37\.3[12]` does not match its own
 * command line; a zombie's cmdline is empty). Every wait is a bounded
 * number of scans; no wall-clock assertion. Linux only.
 */
import assert from "node:assert/strict";

/**
 * Pids whose command line matches `pattern`.
 *
 * @param pattern A `grep` regular expression that does not match itself.
 * @returns The pids.
 */
export async function markedPids(pattern: string): Promise<number[]> {
  const out = await new Deno.Command("sh", {
    args: [
      "-c",
      'exec grep -l -a -s -e "$1" /proc/[0-9]*/cmdline',
      "sh",
      pattern,
    ],
    stdout: "piped",
    stderr: "null",
  }).output();
  assert.ok(out.code <= 2, `the /proc scan failed (exit ${out.code})`);
  return [...new TextDecoder().decode(out.stdout).matchAll(/\/proc\/(\d+)\//g)]
    .map((m) => Number(m[1]));
}

/**
 * Scans until `done` holds for the pids found: at most 500 scans, 10 ms
 * apart.
 *
 * @param pattern As for {@linkcode markedPids}.
 * @param done The condition.
 * @returns The last scan's pids.
 */
export async function scanUntil(
  pattern: string,
  done: (pids: number[]) => boolean,
): Promise<number[]> {
  let pids = await markedPids(pattern);
  for (let i = 0; i < 500 && !done(pids); i++) {
    await new Promise((r) => setTimeout(r, 10));
    pids = await markedPids(pattern);
  }
  return pids;
}
