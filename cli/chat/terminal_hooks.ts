/**
 * What the terminal chat's printer learns outside the event stream: a
 * tool call as it starts (the engine announces it once it ended), a
 * retry's backoff as it starts and ends and why it retries (the HTTP
 * status or the failed connection the provider call just met), and a
 * prompt about to be written (the status line goes first). The hooks wrap the session's
 * tools and sleep; with a printer that has no terminal parts they change
 * nothing.
 *
 * @module
 */
import type { ToolRegistry } from "../../tools/registry.ts";
import type { EventPrinter } from "../io/output.ts";

/** Backoffs shorter than this show no status. */
const SHOWN_BACKOFF_MS = 200;

/** A provider transport. */
type Fetch = (input: string, init: RequestInit) => Promise<Response>;

/** The words of the HTTP statuses a provider call is retried on. */
const STATUS_WORDS: Readonly<Record<number, string>> = {
  408: "timed out",
  409: "conflict",
  425: "too early",
  429: "rate limited",
  500: "server error",
  502: "bad gateway",
  503: "unavailable",
  504: "gateway timeout",
  529: "overloaded",
};

/**
 * Why a provider call failed, as a retry names it: `429 rate limited`,
 * `HTTP 418`, `connection failed`.
 *
 * @param outcome The response's status, or `undefined` for a failed connection.
 * @returns The words.
 */
export function retryReason(outcome: number | undefined): string {
  if (outcome === undefined) return "connection failed";
  const words = STATUS_WORDS[outcome];
  return words === undefined ? `HTTP ${outcome}` : `${outcome} ${words}`;
}

/** The hooks of one chat. */
export interface TerminalHooks {
  /** Waits for the printed events, then clears the status for a prompt. */
  settle(): Promise<void>;
  /** Sets the printer (created after the prompts). */
  attach(printer: EventPrinter): void;
  /**
   * The provider transport, observed: a failed call is remembered so the
   * retry after it can say why.
   *
   * @param fetch The transport.
   * @returns The observed transport.
   */
  observeFetch(fetch: Fetch): Fetch;
  /**
   * The session's deps with its tools and sleep observed.
   *
   * @param deps The deps.
   * @returns A copy with `tools` and `sleep` wrapped.
   */
  observe<
    T extends {
      tools?: ToolRegistry;
      sleep(ms: number, signal: AbortSignal): Promise<void>;
      secrets?: readonly string[];
    },
  >(deps: T): T;
}

/**
 * Creates the hooks.
 *
 * @param settled Resolves once the events published so far are printed.
 * @returns The hooks.
 */
export function createTerminalHooks(
  settled: () => Promise<void>,
): TerminalHooks {
  let printer: EventPrinter | undefined;
  // Why the latest provider call failed (reset when a call starts).
  let failure: string | undefined;
  return {
    observeFetch(fetch) {
      return async (input, init) => {
        failure = undefined;
        try {
          const response = await fetch(input, init);
          if (!response.ok) failure = retryReason(response.status);
          return response;
        } catch (e) {
          if (init.signal?.aborted !== true) failure = retryReason(undefined);
          throw e;
        }
      };
    },
    async settle() {
      await settled();
      printer?.interrupt?.();
    },
    attach(p) {
      printer = p;
    },
    observe(deps) {
      const { tools, sleep, secrets } = deps;
      return {
        ...deps,
        sleep: async (ms: number, signal: AbortSignal): Promise<void> => {
          const shown = ms >= SHOWN_BACKOFF_MS;
          if (shown) printer?.backoff?.(ms, failure);
          try {
            await sleep(ms, signal);
          } finally {
            if (shown) printer?.backoffDone?.();
          }
        },
        ...(tools === undefined ? {} : {
          tools: {
            ...tools,
            dispatch: async (call, ctx) => {
              // The line follows the text streamed before the call.
              await settled();
              printer?.toolStarting?.(call.name, call.args, secrets);
              return tools.dispatch(call, ctx);
            },
          } satisfies ToolRegistry,
        }),
      };
    },
  };
}
