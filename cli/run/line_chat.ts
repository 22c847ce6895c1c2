/**
 * A line chat (`chat`, `chat-resume`): its reader and prompts before the
 * session opens, and the loop once it has.
 *
 * @module
 */
import { createApprover, createGatePrompt } from "../chat/approval_prompt.ts";
import { openChatReader } from "../chat/chat_reader.ts";
import { isCi, runChatLoop } from "../chat/loop.ts";
import { createTerminalHooks } from "../chat/terminal_hooks.ts";
import { userLineHandler } from "../chat/user_input.ts";
import type { CommandEnv } from "../command_env.ts";
import type { LineReader } from "../io/stdin.ts";
import type { Result } from "../../schema/result.ts";
import type { CliFault } from "../fault.ts";
import {
  type ChatFrame,
  openChat,
  type OpenChatSpec,
  type OpenedChat,
} from "./open_chat.ts";

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
  // On a terminal: not under `--json`, both ends a terminal, not in CI.
  const interactive = !ctx.globals.json && ctx.io.stdinIsTerminal &&
    ctx.io.stdoutIsTerminal && !isCi((n) => ctx.io.env(n));
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
      ? {
        gate: createGatePrompt(ctx.io, reader, hooks.settle),
        approver: createApprover(ctx.io, reader, hooks.settle),
      }
      : {}),
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

/**
 * Opens a line chat's session: the opener with the chat's frame, its mode
 * (default `ask`) and hints on.
 *
 * @param ctx The command context.
 * @param spec The run, store, frame and mode.
 * @param open Opens or resumes the session with the host's options.
 * @returns The opened chat, or the opener's fault.
 */
export function openLineChat(
  ctx: CommandEnv,
  spec: Pick<OpenChatSpec, "run" | "store" | "mode"> & { frame: ChatFrame },
  open: OpenChatSpec["open"],
): Promise<Result<OpenedChat, CliFault>> {
  return openChat(ctx, { ...spec, printer: { hints: true }, open });
}
