/**
 * The stream watchdog of one HTTP provider call: a first-byte timer, an
 * idle-stream deadline, a response size bound, and the abort signal bound
 * to the body's reader.
 *
 * @module
 */
import type { LlmError } from "./chunk.ts";
import { makeLlmError } from "./errors.ts";
import type { StreamLimits } from "./stream_limits.ts";

/** Error codes of the watchdog's own errors (their messages are ours). */
export const WATCHDOG_CODES: ReadonlySet<string> = new Set([
  "first_byte_timeout",
  "idle_timeout",
  "response_too_large",
]);

/**
 * The watchdog of one call. Its `signal` aborts when the caller's signal
 * does or when a timer expires; the call passes it to `fetch`, so an expiry
 * also aborts the request and its body.
 */
export interface Watchdog {
  /** The call's signal: the caller's abort or the watchdog's expiry. */
  readonly signal: AbortSignal;
  /**
   * Binds the body's reader: when the signal aborts, the reader is
   * cancelled, so a pending read settles at once (done) even when the
   * transport ignores the signal. One listener for the whole call; no read
   * is raced.
   */
  watch(reader: ReadableStreamDefaultReader<Uint8Array>): void;
  /** Content arrived: the idle deadline moves to now plus the idle timeout. */
  content(): void;
  /**
   * Why the call was stopped: `cancelled` when the caller aborted (that
   * wins), the timeout when a timer expired, else `undefined`.
   */
  stopped(): LlmError | undefined;
  /** Clears the timer and the listener; aborts the request when asked. */
  dispose(abortRequest: boolean): void;
}

function ignore(): void {}

/**
 * Starts the watchdog of one call: the first-byte timer runs from now (the
 * request is about to be sent) until the first {@linkcode Watchdog.content};
 * from then on the idle deadline is the last content plus the idle timeout.
 * Either passing aborts the call with a `timeout` error (`code`
 * `first_byte_timeout` or `idle_timeout`), which is retryable: the chain
 * retries and fails over while nothing was forwarded, and ends the turn
 * after. Content only records the time: one timer runs at a time, and when
 * it fires early (content came since it was armed) it is armed once more
 * for what is left, so the work per event is constant. Each call has its
 * own timer, so nothing the chain's (possibly instant) `sleep` does
 * shortens or defeats it; `dispose` clears it.
 *
 * @param provider The provider id, for errors.
 * @param caller The caller's abort signal, when it has one.
 * @param limits The call's bounds.
 * @returns The watchdog.
 */
export function startWatchdog(
  provider: string,
  caller: AbortSignal | undefined,
  limits: StreamLimits,
): Watchdog {
  const own = new AbortController();
  const signal = caller === undefined
    ? own.signal
    : AbortSignal.any([caller, own.signal]);
  let expired: LlmError | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let idle = false;
  let deadline = performance.now() + limits.firstByteTimeoutMs;
  let bound: ReadableStreamDefaultReader<Uint8Array> | undefined;
  const onAbort = (): void => {
    bound?.cancel(signal.reason).catch(ignore);
  };
  signal.addEventListener("abort", onAbort, { once: true });

  function check(): void {
    timer = undefined;
    if (caller?.aborted === true || signal.aborted) return;
    const left = deadline - performance.now();
    if (left > 0) {
      timer = setTimeout(check, Math.ceil(left));
      return;
    }
    expired = idle
      ? makeLlmError(
        "timeout",
        provider,
        `Stream stalled: no content for ${limits.idleTimeoutMs} ms (idle timeout)`,
        { code: "idle_timeout" },
      )
      : makeLlmError(
        "timeout",
        provider,
        `No content within ${limits.firstByteTimeoutMs} ms of the request (first-byte timeout)`,
        { code: "first_byte_timeout" },
      );
    own.abort(new DOMException(expired.message, "TimeoutError"));
  }

  timer = setTimeout(check, limits.firstByteTimeoutMs);
  return {
    signal,
    watch(reader: ReadableStreamDefaultReader<Uint8Array>): void {
      bound = reader;
      if (signal.aborted) onAbort();
    },
    content(): void {
      if (expired !== undefined) return;
      deadline = performance.now() + limits.idleTimeoutMs;
      if (!idle) {
        // The first content: the idle timeout may be shorter than what is
        // left of the first-byte one, so the timer is armed afresh once.
        idle = true;
        clearTimeout(timer);
        timer = signal.aborted
          ? undefined
          : setTimeout(check, limits.idleTimeoutMs);
      }
    },
    stopped(): LlmError | undefined {
      if (caller?.aborted === true) {
        return makeLlmError("cancelled", provider, "Request aborted");
      }
      return expired;
    },
    dispose(abortRequest: boolean): void {
      clearTimeout(timer);
      timer = undefined;
      signal.removeEventListener("abort", onAbort);
      if (abortRequest && !own.signal.aborted) {
        own.abort(new DOMException("Call ended", "AbortError"));
      }
    },
  };
}

/**
 * Settles as `pending` does, or rejects with the signal's reason as soon as
 * it aborts (a pending `fetch` or read never outlives an abort).
 *
 * @param pending The pending operation.
 * @param signal The call's signal, when it has one.
 * @returns The raced promise.
 */
export function abortable<T>(
  pending: Promise<T>,
  signal: AbortSignal | undefined,
): Promise<T> {
  if (signal === undefined) return pending;
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    if (signal.aborted) {
      pending.catch(ignore);
      onAbort();
      return;
    }
    signal.addEventListener("abort", onAbort, { once: true });
    pending.then((value) => {
      signal.removeEventListener("abort", onAbort);
      resolve(value);
    }, (thrown) => {
      signal.removeEventListener("abort", onAbort);
      reject(thrown);
    });
  });
}

/**
 * The error of a response past its size bound: `transport`, code
 * `response_too_large`.
 *
 * @param provider The provider id.
 * @param limit The bound, in bytes.
 * @returns The error.
 */
export function tooLarge(provider: string, limit: number): LlmError {
  return makeLlmError(
    "transport",
    provider,
    `Response refused: larger than ${limit} bytes (size bound)`,
    { code: "response_too_large" },
  );
}
