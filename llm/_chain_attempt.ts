/**
 * One real attempt of the fallback chain: read a provider stream, forward
 * its non-terminal chunks, stop at the terminal, at truncation or at abort.
 *
 * @module
 */
import type { LlmError, StopReason, StreamChunk, Usage } from "./chunk.ts";
import {
  FROZEN_REQUEST_RULE,
  type LlmProvider,
  type LlmRequest,
} from "./provider.ts";
import type { ChainEvent } from "./chain_event.ts";
import { LlmProviderError, makeLlmError } from "./errors.ts";
import { chunkBatches } from "./_chunk_batches.ts";

/**
 * How one attempt ended: a clean `stop`, or an error and whether any chunk
 * was forwarded before it (commit).
 */
export type AttemptOutcome =
  | {
    type: "stop";
    stopReason: StopReason;
    usage: Usage;
    contextExceeded?: true;
    /** The stream reported no usage: its zeros are not a measurement. */
    usageUnknown?: true;
  }
  | { type: "error"; error: LlmError; committed: boolean };

/**
 * What the attempt reader needs besides the stream.
 */
export interface AttemptInput {
  /** The provider to call. */
  provider: LlmProvider;
  /** The prepared request (model set, signal attached). */
  request: LlmRequest;
  /** The resolved key. */
  key: string;
  /** The call's abort signal. */
  signal: AbortSignal;
  /** 1-based attempt number, echoed on chunk events. */
  attemptNumber: number;
}

const ABORTED: unique symbol = Symbol("aborted");

/**
 * The `cancelled` error of an aborted call.
 *
 * @param provider The provider id.
 * @returns A fatal `cancelled` error.
 */
export function cancelledError(provider: string): LlmError {
  return makeLlmError("cancelled", provider, "Request aborted");
}

/** The engine's `TypeError` for a write to a frozen object or array. */
function isFrozenWrite(thrown: unknown): boolean {
  return thrown instanceof TypeError &&
    /read[- ]only property|object is not extensible|Cannot delete property|frozen/i
      .test(thrown.message);
}

/**
 * Classifies a value a provider threw: an {@linkcode LlmProviderError}
 * keeps its error, an aborted call is `cancelled`, a write to a frozen
 * request part is `bad_request` naming the rule it broke (see
 * {@linkcode FROZEN_REQUEST_RULE}), anything else `unknown`.
 *
 * @param thrown The thrown value.
 * @param provider The provider id.
 * @param signal The call's abort signal.
 * @returns The classified error.
 */
export function errorFromThrow(
  thrown: unknown,
  provider: string,
  signal: AbortSignal,
): LlmError {
  if (signal.aborted) return cancelledError(provider);
  if (thrown instanceof LlmProviderError) {
    return normaliseError(thrown.llmError, provider);
  }
  const detail = thrown instanceof Error ? thrown.message : String(thrown);
  if (isFrozenWrite(thrown)) {
    return makeLlmError(
      "bad_request",
      provider,
      `Provider ${provider} wrote to its request: ${FROZEN_REQUEST_RULE} (${detail})`,
    );
  }
  return makeLlmError("unknown", provider, `Provider threw: ${detail}`);
}

/**
 * Re-derives `retryable` from the kind and re-scrubs a provider's error.
 *
 * @param error The error as the provider reported it.
 * @param provider Fallback provider id when the error names none.
 * @returns The normalised error.
 */
export function normaliseError(error: LlmError, provider: string): LlmError {
  const { kind, retryable: _, provider: named, message, ...extra } = error;
  return makeLlmError(kind, named === "" ? provider : named, message, extra);
}

/**
 * Reads of a stream that an abort ends at once: each read resolves with
 * the next result, or with `ABORTED` as soon as the signal aborts (the
 * pending read is abandoned). One abort listener for the whole attempt,
 * and nothing kept per read once it has resolved.
 */
function abortableReads(signal: AbortSignal): {
  next(
    iterator: AsyncIterator<StreamChunk>,
  ): Promise<IteratorResult<StreamChunk> | typeof ABORTED>;
  dispose(): void;
} {
  let wake: ((value: typeof ABORTED) => void) | undefined;
  const onAbort = (): void => wake?.(ABORTED);
  signal.addEventListener("abort", onAbort, { once: true });
  return {
    next: (iterator) =>
      new Promise((resolve, reject) => {
        wake = resolve;
        Promise.resolve(iterator.next()).then(resolve, reject);
      }),
    dispose: () => {
      wake = undefined;
      signal.removeEventListener("abort", onAbort);
    },
  };
}

function closeQuietly(iterator: AsyncIterator<unknown>): void {
  try {
    const closing = iterator.return?.();
    if (closing !== undefined) closing.catch(() => undefined);
  } catch {
    // A provider whose iterator cannot close has nothing left to tell us.
  }
}

/**
 * One attempt, stepped by the chain: each {@linkcode Attempt.step} gives
 * the next `chunk` event, or `undefined` once the stream ended, its
 * {@linkcode Attempt.outcome} then set. An abort wins over whatever the
 * transport said and stops reading at once (a pending read is abandoned);
 * a stream that ends without `stop`/`error` is a `transport` error
 * (truncated). A stream that carries `CHUNK_BATCHES` (the HTTP adapters')
 * is read one list of chunks at a time, its reads not raced with the
 * signal (they end on the abort by themselves), and a list's chunks are
 * handed out by {@linkcode Attempt.stepNow} with no await. The provider's
 * iterator is closed when the attempt ends or is closed.
 */
export class Attempt {
  /** How the stream ended, once `step` gave `undefined`. */
  outcome: AttemptOutcome | undefined;
  readonly #input: AttemptInput;
  #iterator: AsyncIterator<StreamChunk> | undefined;
  #lists: AsyncIterator<StreamChunk[]> | undefined;
  #list: StreamChunk[] = [];
  #at = 0;
  #reads: ReturnType<typeof abortableReads> | undefined;
  #committed = false;

  /**
   * Prepares the attempt; nothing is sent until the first `step`.
   *
   * @param input Provider, prepared request, key, signal, attempt number.
   */
  constructor(input: AttemptInput) {
    this.#input = input;
  }

  /**
   * The next chunk event when one is at hand and forwarding it needs no
   * decision (not a terminal chunk, no abort): else `undefined`, and the
   * caller awaits {@linkcode Attempt.step}.
   *
   * @returns The event, or `undefined`.
   */
  stepNow(): ChainEvent | undefined {
    const chunk = this.#list[this.#at];
    if (
      chunk === undefined || chunk.type === "stop" ||
      chunk.type === "error" || this.#input.signal.aborted
    ) {
      return undefined;
    }
    this.#at++;
    return this.#forward(chunk);
  }

  /**
   * The next forwarded chunk event, or `undefined` when the attempt ended.
   *
   * @returns The event, or `undefined` (see `outcome`).
   */
  async step(): Promise<ChainEvent | undefined> {
    if (this.outcome !== undefined) return undefined;
    const { provider, request, key, signal } = this.#input;
    const pid = provider.id;
    let iterator = this.#iterator;
    if (iterator === undefined) {
      if (signal.aborted) return this.#end(this.#error(cancelledError(pid)));
      try {
        iterator = provider.stream(request, key)[Symbol.asyncIterator]();
      } catch (thrown) {
        return this.#end(this.#error(errorFromThrow(thrown, pid, signal)));
      }
      this.#iterator = iterator;
      this.#lists = chunkBatches(iterator);
      if (this.#lists === undefined) this.#reads = abortableReads(signal);
    }
    let chunk: StreamChunk;
    try {
      const next = await this.#next(iterator);
      if (next === ABORTED || signal.aborted) {
        return this.#end(this.#error(cancelledError(pid)));
      }
      if (next === undefined) {
        const error = makeLlmError(
          "transport",
          pid,
          "Stream ended before a terminal chunk: truncated",
        );
        return this.#end(this.#error(error));
      }
      chunk = next;
    } catch (thrown) {
      return this.#end(this.#error(errorFromThrow(thrown, pid, signal)));
    }
    if (chunk.type === "stop") {
      const outcome: AttemptOutcome = {
        type: "stop",
        stopReason: chunk.stopReason,
        usage: { ...chunk.usage },
      };
      if (chunk.contextExceeded === true) outcome.contextExceeded = true;
      if (chunk.usageUnknown === true) outcome.usageUnknown = true;
      return this.#end(outcome);
    }
    if (chunk.type === "error") {
      return this.#end(this.#error(normaliseError(chunk.error, pid)));
    }
    return this.#forward(chunk);
  }

  /** The next chunk, `undefined` at the end, or `ABORTED`. */
  async #next(
    iterator: AsyncIterator<StreamChunk>,
  ): Promise<StreamChunk | undefined | typeof ABORTED> {
    const lists = this.#lists;
    if (lists === undefined) {
      if (this.#input.signal.aborted) return ABORTED;
      const step = await (this.#reads as ReturnType<typeof abortableReads>)
        .next(iterator);
      return step === ABORTED
        ? ABORTED
        : step.done === true
        ? undefined
        : step.value;
    }
    while (this.#at >= this.#list.length) {
      if (this.#input.signal.aborted) return ABORTED;
      const step = await lists.next();
      if (step.done === true) return undefined;
      this.#list = step.value;
      this.#at = 0;
    }
    return this.#list[this.#at++];
  }

  #forward(
    chunk: Exclude<StreamChunk, { type: "stop" } | { type: "error" }>,
  ): ChainEvent {
    this.#committed = true;
    const { provider, request, attemptNumber } = this.#input;
    return {
      type: "chunk",
      attemptNumber,
      provider: provider.id,
      model: request.model,
      chunk,
    };
  }

  /** Stops reading: the provider's iterator is closed (idempotent). */
  close(): void {
    this.#reads?.dispose();
    this.#reads = undefined;
    this.#list = [];
    const lists = this.#lists;
    this.#lists = undefined;
    if (lists !== undefined) closeQuietly(lists);
    const iterator = this.#iterator;
    this.#iterator = undefined;
    if (iterator !== undefined) closeQuietly(iterator);
  }

  #error(error: LlmError): AttemptOutcome {
    return { type: "error", error, committed: this.#committed };
  }

  #end(outcome: AttemptOutcome): undefined {
    this.outcome = outcome;
    this.close();
    return undefined;
  }
}
