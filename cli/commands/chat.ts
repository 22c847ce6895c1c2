/**
 * `chat`: start a persisted session in `history.db` and
 * run the line loop. No `--agent` ⇒ the built-in read-only chat agent on
 * the resolved default model.
 *
 * @module
 */
import { openSession, type PersistedSession } from "../../host/host.ts";
import type { CliCommand } from "../args.ts";
import { isCi, runChatLoop } from "../chat/loop.ts";
import type { CommandEnv, CommandResult } from "../command_env.ts";
import { fault } from "../fault.ts";
import { historyPath, openHistory } from "../run/history.ts";
import { prepareNewRun } from "../run/session_setup.ts";
import { finishRecording } from "../run/record_exit.ts";
import { printerFor, writeNotices } from "../run/session_io.ts";
import { hostOptions, pumpEvents } from "../run/host_options.ts";
import { createApprover, createGatePrompt } from "../chat/approval_prompt.ts";
import { offerTrust } from "../chat/trust_prompt.ts";
import { userLineHandler } from "../chat/user_input.ts";
import { openChatReader } from "../chat/chat_reader.ts";
import { buildModes } from "../run/modes.ts";
import { withBudgetNotices } from "../run/window_settings.ts";
import { createTerminalHooks } from "../chat/terminal_hooks.ts";

/**
 * Runs `chat`.
 *
 * @param command The parsed command.
 * @param ctx The command context.
 * @returns 4 when the chat ends, 1 on a latched store or cassette fault,
 * 130/143 on signals outside the REPL, or a pre-session fault.
 */
export async function runChat(
  command: Extract<CliCommand, { name: "chat" }>,
  ctx: CommandEnv,
): Promise<CommandResult> {
  const interactive = !ctx.globals.json && ctx.io.stdinIsTerminal &&
    ctx.io.stdoutIsTerminal && !isCi((n) => ctx.io.env(n));
  const reader = await openChatReader(ctx.io, {
    interactive,
    workspace: ctx.cwd,
  });
  // A project file asking for more than the user granted is offered for
  // trust once, on a terminal, before its settings are read for the run.
  if (interactive) await offerTrust(ctx, reader);
  // Prompts wait for the events before them to be printed.
  const current: { live?: PersistedSession } = {};
  const hooks = createTerminalHooks(() =>
    current.live?.events.settled() ?? Promise.resolve()
  );
  const settle = hooks.settle;
  const prep = await prepareNewRun(ctx, {
    ...command,
    ...(interactive
      ? { userTools: true, gate: createGatePrompt(ctx.io, reader, settle) }
      : {}),
  });
  if (!prep.ok) return prep.error;
  const run = prep.value;
  const path = historyPath(run.config.paths);
  if (!path.ok) return path.error;
  const opened = await openHistory(path.value, {
    create: true,
    notice: (text) => ctx.io.stderr.write(text),
  });
  if (!opened.ok) return opened.error;
  const store = opened.value;
  if (store === undefined) return fault("internal", "History store missing");
  writeNotices(ctx, run.notices);
  const printer = printerFor(ctx, {
    primaryModel: run.agent.model,
    hints: true,
    turnSummary: interactive,
    memory: run.agent.memory?.type,
    terminal: interactive,
  });
  hooks.attach(printer);
  const modes = buildModes(run.registry, {
    mode: command.mode ?? "ask",
    ...(interactive
      ? { approver: createApprover(ctx.io, reader, settle) }
      : {}),
  });
  let live: PersistedSession;
  try {
    live = openSession({
      store,
      agent: run.agent,
      context: run.context,
      ...hostOptions(ctx, {
        ...hooks.observe(
          withBudgetNotices(run.deps, (t) => ctx.io.stderr.write(t)),
        ),
        interactive,
      }),
    });
  } catch (e) {
    store.close();
    const why = e instanceof Error ? e.name : "unknown error";
    return fault("internal", `Cannot create the session: ${why}`);
  }
  current.live = live;
  const drained = pumpEvents(live, printer);
  await live.events.settled();
  if (!ctx.globals.json && !ctx.globals.quiet) {
    ctx.io.stderr.write(
      `Session ${live.sessionId} (${run.agent.id}, ${run.agent.model})${
        interactive ? " · /help for commands, /exit to leave" : ""
      }\n`,
    );
  }
  let reseat: { model: string; provider: string } | undefined;
  try {
    const code = await runChatLoop({
      ctx,
      live,
      store,
      printer,
      modes,
      reader,
      interactive,
      model: { model: run.agent.model, provider: run.agent.provider },
      ...(interactive ? { onReseat: (to) => void (reseat = to) } : {}),
      ...(interactive
        ? {
          prepareLine: userLineHandler(
            ctx.io,
            live.session,
            modes,
            run.registry,
          ),
        }
        : {}),
      ...(run.replay === undefined ? {} : { replay: run.replay }),
      ...(run.deps.maxMessages === undefined
        ? {}
        : { maxMessages: run.deps.maxMessages }),
    });
    await drained;
    const recorded = await finishRecording(ctx, run.recorder);
    if (reseat !== undefined && recorded) {
      const { continueOn } = await import("./chat_resume.ts");
      return await continueOn(ctx, live.sessionId, reseat, reader);
    }
    // A chat that never reached a provider keeps nothing worth resuming
    // (chat-list leaves it out).
    if (
      !ctx.globals.json && !ctx.globals.quiet && live.session.turnCount > 0
    ) {
      ctx.io.stderr.write(
        `Resume with: ${
          ctx.io.invocation?.() ?? "relavium"
        } chat-resume ${live.sessionId}\n`,
      );
    }
    return recorded ? code : 1;
  } finally {
    store.close();
  }
}
