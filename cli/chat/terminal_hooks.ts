/**
 * What the terminal chat's printer learns outside the event stream: a
 * tool call as it starts (the engine announces it once it ended), a
 * retry's backoff as it starts and ends, and a prompt about to be
 * written (the status line goes first). The hooks wrap the session's
 * tools and sleep; with a printer that has no terminal parts they change
 * nothing.
 *
 * @module
 */
import type { ToolRegistry } from "../../tools/registry.ts";
import type { EventPrinter } from "../io/output.ts";

/** Backoffs shorter than this show no status. */
const SHOWN_BACKOFF_MS = 200;

/** The hooks of one chat. */
export interface TerminalHooks {
  /** Waits for the printed events, then clears the status for a prompt. */
  settle(): Promise<void>;
  /** Sets the printer (created after the prompts). */
  attach(printer: EventPrinter): void;
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
  return {
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
          if (shown) printer?.backoff?.(ms);
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
