/**
 * From the CLI's flat session deps to the host's options: a runtime of
 * real effects around the CLI's own provider wiring, the tools, and the
 * engine settings; and the printing pump that reads the host's one event
 * channel.
 *
 * @module
 */
import type { PersistedSession } from "../../host/host.ts";
import type { SessionSettings } from "../../session/deps.ts";
import type { SessionRuntime } from "../../host/runtime.ts";
import { thisProcess } from "../../host/process_identity.ts";
import { createCatalog } from "../../llm/create_catalog.ts";
import type { ModelCatalog } from "../../llm/catalog.ts";
import type { LlmProvider } from "../../llm/provider.ts";
import type { ToolRegistry } from "../../tools/registry.ts";
import type { CommandEnv } from "../command_env.ts";
import type { EventPrinter } from "../io/output.ts";
import type { SessionEvent } from "../../schema/event.ts";

/**
 * The CLI's session deps: the engine settings plus its provider wiring,
 * key lookup, backoff sleep, catalog and tools.
 */
export type CliSessionDeps = SessionSettings & {
  /** Provider by id (the CLI's wiring, or a cassette's replay). */
  resolveProvider(id: string): LlmProvider | undefined;
  /** The API key of a provider. */
  keyFor(providerId: string): string | Promise<string>;
  /** The backoff sleep. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** Prices and windows; absent ⇒ the bundled catalog. */
  catalog?: ModelCatalog;
  /** The session's tools. */
  tools?: ToolRegistry;
  /** Every configured key: redacted from events and stored rows. */
  secrets?: readonly string[];
};

/**
 * Splits the CLI's deps into the host's `runtime`, `tools` and `settings`:
 * the system clock, random UUIDs, the io's `fetch`, the working folder,
 * this process (for the session's writer lease).
 *
 * @param ctx The command context (cwd, fetch).
 * @param deps The CLI's session deps.
 * @returns The host options the CLI passes to open or resume.
 */
export function hostOptions(
  ctx: CommandEnv,
  deps: CliSessionDeps,
): {
  runtime: SessionRuntime;
  tools?: ToolRegistry;
  settings: SessionSettings;
  secrets?: readonly string[];
} {
  const {
    resolveProvider,
    keyFor,
    sleep,
    catalog,
    tools,
    secrets,
    ...settings
  } = deps;
  const io = ctx.io;
  const runtime: SessionRuntime = {
    clock: { now: () => Date.now() },
    ids: () => crypto.randomUUID(),
    sleep,
    fetch: io.fetch ?? ((input, init) => fetch(input, init)),
    catalog: catalog ?? createCatalog(),
    keyFor,
    workingDir: ctx.cwd,
    resolveProvider,
    process: thisProcess(),
  };
  return {
    runtime,
    ...(tools === undefined ? {} : { tools }),
    settings,
    ...(secrets === undefined ? {} : { secrets }),
  };
}

/**
 * Prints every event of a live session as it arrives. Before writing
 * anything of its own (a prompt, a slash command's output), the caller
 * awaits `live.events.settled()` so the terminal keeps event order.
 *
 * @param live The live session.
 * @param printer Where events go.
 * @param observe Called with each event before it is printed.
 * @returns Resolves when the channel ends (after `session:cancelled`).
 */
export async function pumpEvents(
  live: PersistedSession,
  printer: EventPrinter,
  observe?: (event: SessionEvent) => void,
): Promise<void> {
  for await (const event of live.events) {
    observe?.(event);
    printer.print(event);
  }
}
