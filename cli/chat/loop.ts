/**
 * The line-oriented chat loop shared by
 * `chat` and `chat-resume`: each stdin line is one turn, run one at a
 * time; slash commands are handled in between; end of input, `/exit` or
 * `/cancel` cancel the session (`session:cancelled` last).
 *
 * Exit codes: an interactive chat the person ends exits 4. A chat that
 * is not interactive (piped, `--json`, CI) is a script: it exits 0 when
 * every turn it sent succeeded and 1 when any failed (an error or an
 * abort), however its input ended, so a CI job can tell.
 *
 * Signals: in the interactive REPL, Ctrl-C during a turn or a `/compact`
 * aborts it and Ctrl-C at the prompt cancels the chat (exit 4); on a
 * terminal the line editor takes the keys at the prompt instead (Ctrl-C
 * clears the line, twice on an empty one ends the chat) and reports Esc
 * and an entered `/cancel` during a turn; elsewhere
 * SIGINT and SIGTERM cancel and exit 130 / 143. A store that failed to write (latch)
 * prints one line, cancels and exits 1, as does any cassette fault.
 *
 * @module
 */
import type { PersistedSession } from "../../host/host.ts";
import type { Replay } from "../../llm/replay_provider.ts";
import type { AsyncSessionStore, SessionStore } from "../../store/store.ts";
import type { ModeController } from "../../tools/modes.ts";
import type { CommandEnv } from "../command_env.ts";
import type { EventPrinter } from "../io/output.ts";
import { CANCELLED_LINE, runSlash } from "./slash.ts";
import { type ContextCommandHost, runSlashCompact } from "./slash_window.ts";
import type { LineReader } from "../io/stdin.ts";
import type { TerminalReader } from "./editor/reader_types.ts";

/**
 * Inputs of {@linkcode runChatLoop}.
 */
export interface ChatLoopOptions {
  /** The command context. */
  ctx: CommandEnv;
  /** The live session. */
  live: PersistedSession;
  /** Its store (for `/cost` and `/export`). */
  store: SessionStore | AsyncSessionStore;
  /** The printer events go to (closed at the end). */
  printer: EventPrinter;
  /** The cassette replay under `--fixture`. */
  replay?: Replay;
  /** The approval modes (`/mode` switches, each turn snapshots). */
  modes: ModeController;
  /**
   * Stdin lines (shared with the approval prompt); on a terminal, the
   * line editor, which shows the prompt itself.
   */
  reader: LineReader | TerminalReader;
  /** Whether this is the interactive REPL (TTY, not `--json`, not CI). */
  interactive: boolean;
  /**
   * The interactive REPL's `!cmd` / `@path` handler: the
   * message to send, or `undefined` when the line was handled (a `!`).
   * Absent ⇒ every line is sent as typed.
   */
  prepareLine?(line: string): Promise<string | undefined>;
  /** `[chat].max_messages`: the bound of a bare `/trim`. */
  maxMessages?: number;
  /** The model the session runs on (`/model` shows it). */
  model?: { model: string; provider: string };
  /**
   * `/model <id>` in an interactive chat: told the model to continue on,
   * after which the loop ends, leaving the reader open for the chat that
   * continues the session on it.
   */
  onReseat?(to: { model: string; provider: string }): void;
}

/**
 * Whether `CI` marks a CI environment (set, and not `false`/`0`).
 *
 * @param env Reads environment variables.
 * @returns `true` in CI.
 */
export function isCi(env: (name: string) => string | undefined): boolean {
  const ci = env("CI");
  return ci !== undefined && ci !== "false" && ci !== "0";
}

/**
 * The interactive prompt: `> `, or `<mode> > ` when the mode is not the
 * default `ask`.
 *
 * @param mode The current mode.
 * @returns The prompt text.
 */
export function promptFor(mode: string): string {
  return mode === "ask" ? "> " : `${mode} > `;
}

/**
 * Runs the loop until the chat ends.
 *
 * @param options Session, store, printer, replay, mode and interactivity.
 * @returns The exit code: 4 (an interactive chat ended), 0 or 1 (a
 * script's chat ended with every turn succeeded, or not), 1 (latched store
 * or cassette fault), 130/143 (signal outside the REPL).
 */
export async function runChatLoop(options: ChatLoopOptions): Promise<number> {
  const { ctx, live, interactive } = options;
  const { io } = ctx;
  const session = live.session;
  const { modes, reader } = options;
  // The loop's own stderr lines wait for the events published before
  // them to be printed, so the terminal keeps their order.
  let writes: Promise<void> = Promise.resolve();
  const write = (text: string): void => {
    const before = live.events.settled();
    writes = writes.then(() => before).then(() => io.stderr.write(text));
  };
  const flush = async (): Promise<void> => {
    await live.events.settled();
    await writes;
  };
  // Set by a signal, a latched store or the person; else decided at the end.
  let exitCode: number | undefined;
  let failedTurns = 0;
  let stopped = false;
  // Each read races a promise of its own that `halt` settles: racing one
  // long-lived promise would add a reaction to it per line, each holding
  // that read's promise and line until the chat ends.
  let wake: () => void = () => {};
  const halted = (): Promise<null> =>
    new Promise<null>((resolve) => {
      wake = () => resolve(null);
      if (stopped) resolve(null);
    });
  const halt = (code: number): void => {
    if (stopped) return;
    stopped = true;
    exitCode = code;
    session.cancel();
    wake();
  };
  const unsubscribe = [
    io.onSignal("SIGINT", () => {
      if (interactive && session.state === "running") session.abort();
      else halt(interactive ? 4 : 130);
    }),
    io.onSignal("SIGTERM", () => halt(143)),
  ];
  // The editor's keys during a turn: Esc (or Ctrl-C arriving as a key)
  // aborts it, an entered `/cancel` cancels the session at once.
  const editor = "terminal" in reader ? reader : undefined;
  if (editor !== undefined) {
    unsubscribe.push(editor.onControl((key) => {
      if (key === "cancel") {
        write(`${CANCELLED_LINE}\n`);
        halt(4);
      } else if (session.state === "running") session.abort();
    }));
  }
  // A failed durable write (a turn, or a /compact or /trim marker).
  const latchCheck = (): void => {
    if (!live.latched) return;
    write(
      "error: The session store failed to write; the session was cancelled (resume it to continue)\n",
    );
    halt(1);
  };
  let promptOpen = false;
  let reseating = false;
  try {
    while (!stopped) {
      const prompt = promptFor(modes.mode);
      if (interactive && editor === undefined) {
        write(prompt);
        promptOpen = true;
      }
      await flush();
      const line = await Promise.race([
        editor === undefined ? reader.next() : editor.readMessage(prompt),
        halted(),
      ]);
      if (line === null || stopped) break;
      if (line === undefined) break;
      promptOpen = false;
      if (line.trim() === "") continue;
      if (line.startsWith("/")) {
        const context: ContextCommandHost = {
          session,
          write,
          ...(options.maxMessages === undefined
            ? {}
            : { maxMessages: options.maxMessages }),
        };
        const outcome = runSlash(line, {
          context,
          write,
          sessionId: live.sessionId,
          store: options.store,
          get mode() {
            return modes.mode;
          },
          ...(options.model === undefined ? {} : { model: options.model }),
          interactive: interactive && options.onReseat !== undefined,
          setMode: (m) => {
            modes.mode = m;
            session.setTurnPolicy(modes.policy);
          },
        });
        if (outcome === "exit") break;
        if (typeof outcome === "object") {
          reseating = true;
          options.onReseat?.(outcome.reseat);
          break;
        }
        if (outcome === "export") {
          await flush();
          const { runSlashExport } = await import("./slash_export.ts");
          await runSlashExport({ ctx, live, store: options.store });
        }
        if (outcome === "compact") await runSlashCompact(context);
        if (outcome === "cost") {
          const { asyncCostReport } = await import("./slash_cost.ts");
          write(await asyncCostReport(options.store, live.sessionId));
        }
        latchCheck();
        continue;
      }
      if (session.state !== "idle") break;
      await flush();
      const text = options.prepareLine === undefined
        ? line
        : await options.prepareLine(line);
      latchCheck();
      if (text === undefined || stopped || session.state !== "idle") continue;
      session.setTurnPolicy(modes.policy);
      const result = await session.sendMessage(text);
      if (result.kind !== "completed") failedTurns++;
      latchCheck();
    }
  } finally {
    if (promptOpen) write("\n");
    for (const off of unsubscribe) off();
    live.close();
    await flush();
    if (!reseating) await reader.close();
    options.printer.end();
  }
  const faults = options.replay?.finalFaults() ?? [];
  for (const f of faults) io.stderr.write(`error: cassette: ${f}\n`);
  if (exitCode !== undefined && exitCode !== 4) return exitCode;
  if (faults.length > 0) return 1;
  if (interactive) return 4;
  return failedTurns > 0 ? 1 : 0;
}
