/**
 * The real backoff wait of a session: a timer that an abort ends at once.
 *
 * @module
 */

/**
 * Waits `ms` milliseconds, or until `signal` aborts, whichever comes
 * first. An abort during the wait rejects at once with `signal.reason`
 * and clears the timer, so an aborted retry never waits out its backoff.
 *
 * @param ms How long to wait, in milliseconds.
 * @param signal Ends the wait early.
 * @returns Resolves after `ms`.
 * @throws The signal's reason (as a rejection) when it aborts first,
 * also when it was aborted already.
 */
export function abortableSleep(
  ms: number,
  signal: AbortSignal,
): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
