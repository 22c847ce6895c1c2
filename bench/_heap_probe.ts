/**
 * Preloaded into the chat by `bench/long_chat.ts --heap` (`deno run
 * --preload`): counts the `session:turn_completed` lines the chat writes
 * to stdout and, after turn 1 and every `RELAVIUM_BENCH_HEAP_EVERY` turns,
 * appends `Deno.memoryUsage()` (with the turn and the maximum of each
 * field over every turn so far) as one JSON line to the file named by
 * `RELAVIUM_BENCH_HEAP_LOG`. Under `--v8-flags=--expose-gc` each sample
 * also forces a full collection after reading the figures and records the
 * heap still used after it (`live`: what the chat really retains).
 *
 * It hooks stdout rather than a timer: in a piped chat a 100 ms interval
 * fired three times over a 300-turn chat of 0.9 s, the loop hardly ever
 * reaching the timer phase.
 *
 * @module
 */
const path = Deno.env.get("RELAVIUM_BENCH_HEAP_LOG");
const every = Number(Deno.env.get("RELAVIUM_BENCH_HEAP_EVERY") ?? "500");
if (path !== undefined) {
  const stdout = Deno.stdout;
  const write = stdout.writeSync.bind(stdout);
  const decoder = new TextDecoder();
  const max = { rss: 0, heapTotal: 0, heapUsed: 0, external: 0 };
  let turn = 0;
  stdout.writeSync = (bytes: Uint8Array): number => {
    const n = write(bytes);
    if (!decoder.decode(bytes).includes('"session:turn_completed"')) return n;
    turn++;
    const m = Deno.memoryUsage();
    max.rss = Math.max(max.rss, m.rss);
    max.heapTotal = Math.max(max.heapTotal, m.heapTotal);
    max.heapUsed = Math.max(max.heapUsed, m.heapUsed);
    max.external = Math.max(max.external, m.external);
    if (turn === 1 || turn % every === 0) {
      const gc = (globalThis as { gc?: () => void }).gc;
      gc?.();
      const live = gc === undefined ? undefined : Deno.memoryUsage().heapUsed;
      Deno.writeTextFileSync(
        path,
        `${
          JSON.stringify({
            turn,
            rss: m.rss,
            heapTotal: m.heapTotal,
            heapUsed: m.heapUsed,
            external: m.external,
            ...(live === undefined ? {} : { live }),
            max,
          })
        }\n`,
        { append: true },
      );
    }
    return n;
  };
}
