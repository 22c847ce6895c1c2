/**
 * The CLI's one session opener, shared by `chat`, `chat-resume` and
 * `agent run`: from a prepared run to a live session with its printer,
 * modes, event pump and, when the command ends, its recording. Each command keeps only what differs: where the agent and
 * the store come from, and what it does with the live session.
 *
 * @module
 */
import type { HostOptions, PersistedSession } from "../../host/mod.ts";
import type { Result } from "../../schema/result.ts";
import type { SessionSettings } from "../../session/deps.ts";
import type { SessionStore } from "../../store/store.ts";
import type { SessionEvent } from "../../schema/event.ts";
import type { GateHook } from "../../tools/approval.ts";
import { createModePolicy, type ModeController } from "../../tools/modes.ts";
import type { ModeName } from "../args.ts";
import { createApprover, createGatePrompt } from "../chat/approval_prompt.ts";
import { openChatReader } from "../chat/chat_reader.ts";
import { isCi, runChatLoop } from "../chat/loop.ts";
import { userLineHandler } from "../chat/user_input.ts";
import {
  createTerminalHooks,
  type TerminalHooks,
} from "../chat/terminal_hooks.ts";
import type { CommandEnv } from "../command_env.ts";
import type { CliFault } from "../fault.ts";
import type { EventPrinter } from "../io/output.ts";
import type { LineReader } from "../io/stdin.ts";
import { finishRecording } from "./record.ts";
import { hostOptionsOf, type PreparedRun } from "./session_setup.ts";
import { printerFor, writeNotices } from "./session_io.ts";
import { withBudgetNotices } from "./window_settings.ts";

/**
 * What a line chat needs before its session exists: the reader, and the
 * prompts that wait for the events printed before them.
 */
export interface ChatFrame {
  /** Whether the chat runs on a terminal (prompts, line editor). */
  interactive: boolean;
  /** Where lines come from. */
  reader: LineReader;
  /** Backoff and tool lines, and the settle before a prompt. */
  hooks: TerminalHooks;
  /** The `git_commit` prompt of an interactive chat. */
  gate?: GateHook;
  /** Set once the session is open (prompts wait for its events). */
  current: { live?: PersistedSession };
}

/**
 * Whether a chat runs on a terminal: not under `--json`, both ends a
 * terminal, not in CI.
 *
 * @param ctx The command context.
 * @returns Whether the chat is interactive.
 */
export function chatIsInteractive(ctx: CommandEnv): boolean {
  return !ctx.globals.json && ctx.io.stdinIsTerminal &&
    ctx.io.stdoutIsTerminal && !isCi((n) => ctx.io.env(n));
}

/**
 * Opens a chat's reader (or takes a carried one) and its prompt hooks.
 *
 * @param ctx The command context.
 * @param workspace The session's working folder (the editor's history).
 * @param carried A reader carried over from the chat before (`/model`).
 * @returns The frame.
 */
export async function openChatFrame(
  ctx: CommandEnv,
  workspace: string,
  carried?: LineReader,
): Promise<ChatFrame> {
  const interactive = chatIsInteractive(ctx);
  const reader = carried ??
    await openChatReader(ctx.io, { interactive, workspace });
  const current: ChatFrame["current"] = {};
  const hooks = createTerminalHooks(() =>
    current.live?.events.settled() ?? Promise.resolve()
  );
  return {
    interactive,
    reader,
    hooks,
    current,
    ...(interactive
      ? { gate: createGatePrompt(ctx.io, reader, hooks.settle) }
      : {}),
  };
}

/**
 * How one command opens its session.
 */
export interface OpenChatSpec {
  /** The prepared run. */
  run: PreparedRun;
  /** The store the session lives in. */
  store: SessionStore;
  /** Opens or resumes the session with the host's options. */
  open(host: HostOptions): Result<PersistedSession, CliFault>;
  /** `--mode` (default `ask`). */
  mode?: ModeName;
  /** A line chat's frame; absent for a one-shot. */
  frame?: ChatFrame;
  /** Printer options beyond the model. */
  printer: {
    hints: boolean;
    /** Where it writes; default the command's own context. */
    ctx?: CommandEnv;
  };
  /** Engine settings that differ from the config's. */
  settings?: SessionSettings;
  /** Called with each event before it is printed. */
  observe?: (event: SessionEvent) => void;
}

/**
 * A live session with everything the command reads while it runs.
 */
export interface OpenedChat {
  /** The live session. */
  live: PersistedSession;
  /** Where its events are printed. */
  printer: EventPrinter;
  /** The mode and its policy. */
  modes: ModeController;
  /** Resolves when the event channel ends. */
  drained: Promise<void>;
  /**
   * Writes the `--record` cassette, if any.
   *
   * @returns Whether it was written (or there was none).
   */
  finish(): Promise<boolean>;
}

/**
 * Opens a prepared run's session: notices, printer, modes, the host's
 * options (runtime, tools, settings, budget notices, terminal hooks), the
 * session itself and the pump that prints its events.
 *
 * @param ctx The command context.
 * @param spec The run, store, opener and what differs per command.
 * @returns The opened chat, or the opener's fault.
 */
export function openChat(
  ctx: CommandEnv,
  spec: OpenChatSpec,
): Result<OpenedChat, CliFault> {
  const { run, frame } = spec;
  writeNotices(ctx, run.notices);
  const interactive = frame?.interactive === true;
  const printer = printerFor(spec.printer.ctx ?? ctx, {
    primaryModel: run.agent.model,
    hints: spec.printer.hints,
    turnSummary: interactive,
    memory: run.agent.memory?.type,
    terminal: interactive,
  });
  frame?.hooks.attach(printer);
  // Without an approver (no terminal) governed actions are refused unless
  // the mode allows them.
  const approver = interactive && frame !== undefined
    ? createApprover(ctx.io, frame.reader, frame.hooks.settle)
    : undefined;
  const modes = createModePolicy({
    mode: spec.mode ?? "ask",
    interactive: approver !== undefined,
    isReadOnly: (id) => run.registry?.isReadOnly(id) ?? false,
    ...(approver === undefined ? {} : { approver }),
  });
  const host = hostOptionsOf(ctx, run);
  const settings = withBudgetNotices(
    { ...host.settings, ...spec.settings, interactive },
    (t) => ctx.io.stderr.write(t),
  );
  let tools = host.tools;
  if (frame !== undefined) {
    const seen = frame.hooks.observe({
      sleep: host.runtime.sleep,
      ...(host.secrets === undefined ? {} : { secrets: host.secrets }),
      ...(tools === undefined ? {} : { tools }),
    });
    host.runtime.sleep = seen.sleep;
    tools = seen.tools;
  }
  const opened = spec.open({
    ...host,
    store: spec.store,
    settings,
    ...(tools === undefined ? {} : { tools }),
  });
  if (!opened.ok) return opened;
  const live = opened.value;
  if (frame !== undefined) frame.current.live = live;
  const drained = (async () => {
    for await (const event of live.events) {
      spec.observe?.(event);
      printer.print(event);
    }
  })();
  return {
    ok: true,
    value: {
      live,
      printer,
      modes,
      drained,
      finish: () => finishRecording(ctx, run.wiring.recorder),
    },
  };
}

/**
 * How a line chat ended.
 */
export interface LineChatEnd {
  /** The loop's exit code. */
  code: number;
  /** Whether the `--record` cassette was written (or there was none). */
  recorded: boolean;
  /** The model `/model` asked to go on with, if any. */
  reseat?: { model: string; provider: string };
}

/**
 * Runs the line loop of an opened chat (`chat` and `chat-resume`), then
 * waits for its events and writes its recording.
 *
 * @param ctx The command context.
 * @param chat The opened chat.
 * @param spec The run, store and frame it was opened with.
 * @returns The exit code, the recording's outcome and a `/model` reseat.
 */
export async function runLineChat(
  ctx: CommandEnv,
  chat: OpenedChat,
  spec: Pick<OpenChatSpec, "run" | "store"> & { frame: ChatFrame },
): Promise<LineChatEnd> {
  const { live, printer, modes } = chat;
  const { run, frame } = spec;
  const { interactive } = frame;
  const maxMessages = run.config.resolved.chat.maxMessages?.value;
  let reseat: LineChatEnd["reseat"];
  const code = await runChatLoop({
    ctx,
    live,
    store: spec.store,
    printer,
    modes,
    reader: frame.reader,
    interactive,
    model: { model: run.agent.model, provider: run.agent.provider },
    ...(interactive
      ? {
        onReseat: (to) => void (reseat = to),
        prepareLine: userLineHandler(ctx.io, live.session, modes, run.registry),
      }
      : {}),
    ...(run.wiring.replay === undefined ? {} : { replay: run.wiring.replay }),
    ...(maxMessages === undefined ? {} : { maxMessages }),
  });
  await chat.drained;
  const recorded = await chat.finish();
  return { code, recorded, ...(reseat === undefined ? {} : { reseat }) };
}
