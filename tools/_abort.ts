/**
 * Private: race a promise against an abort signal without leaking
 * listeners or unhandled rejections.
 *
 * @module
 */

/** Outcome of {@linkcode raceAbort}. */
export type Raced<T> = { aborted: true } | { aborted: false; value: T };

/** Settles with the promise, or `{aborted: true}` as soon as `signal` aborts. */
export function raceAbort<T>(
  promise: Promise<T>,
  signal: AbortSignal,
): Promise<Raced<T>> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.resolve({ aborted: true });
  }
  return new Promise<Raced<T>>((resolve, reject) => {
    function onAbort(): void {
      promise.catch(() => undefined);
      resolve({ aborted: true });
    }
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve({ aborted: false, value });
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
