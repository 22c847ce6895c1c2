/**
 * `chat-resume <id> | --last`: reload a stored session with
 * its stored agent and context (text-only history), in mode `ask` with an
 * empty approval cache, and run the line loop. Lands idle, without
 * `session:started`.
 *
 * @module
 */
import { streamLimitsOf } from "../config/resolve.ts";
import { type PersistedSession, resumeSession } from "../../host/host.ts";
import type { CliCommand } from "../args.ts";
import { isCi, runChatLoop } from "../chat/loop.ts";
import type { CommandEnv, CommandResult } from "../command_env.ts";
import { type CliFault, fault } from "../fault.ts";
import {
  damagedRowsNotice,
  damagedSessionFault,
  historyPath,
  openHistory,
} from "../run/history.ts";
import {
  type DamagedSessionRow,
  listSqliteSessions,
} from "../../store/sqlite_list.ts";
import type { LoadedSession } from "../../store/store.ts";
import { wireProviders } from "../run/provider_wiring.ts";
import { finishRecording } from "../run/record_exit.ts";
import {
  buildHostDeps,
  chatGuardrails,
  loadRunConfig,
  sessionTools,
} from "../run/session_setup.ts";
import { userLineHandler } from "../chat/user_input.ts";
import { printerFor, writeNotices } from "../run/session_io.ts";
import { hostOptions, pumpEvents } from "../run/host_options.ts";
import { createApprover, createGatePrompt } from "../chat/approval_prompt.ts";
import { locateConfig } from "../config/config.ts";
import { openChatReader } from "../chat/chat_reader.ts";
import type { LineReader } from "../io/stdin.ts";
import { createTerminalHooks } from "../chat/terminal_hooks.ts";
import { buildModes } from "../run/modes.ts";
import { withBudgetNotices } from "../run/window_settings.ts";
import { stripControl } from "../io/control.ts";
import { shownFolder } from "./chat_list.ts";
import { inProject, projectFolder, resolveSessionId } from "./session_ref.ts";

/**
 * Runs `chat-resume`.
 *
 * @param command The parsed command.
 * @param ctx The command context.
 * @returns As `chat`; an unknown id is a `not_found` fault (exit 2), a
 * session another writer has open a `session_busy` fault (exit 2).
 */
export async function runChatResume(
  command: Extract<CliCommand, { name: "chat-resume" }>,
  ctx: CommandEnv,
  carried?: { reader: LineReader },
): Promise<CommandResult> {
  const config = await loadRunConfig(ctx);
  if (!config.ok) return config.error;
  const path = historyPath(config.value.paths);
  if (!path.ok) return path.error;
  const opened = await openHistory(path.value, {
    create: false,
    notice: (text) => ctx.io.stderr.write(text),
  });
  if (!opened.ok) return opened.error;
  const store = opened.value;
  const wanted = command.sessionId;
  const noSession: CliFault = wanted === undefined
    ? fault("not_found", "No session to resume")
    : fault("not_found", `No session with id ${wanted}`);
  if (store === undefined) return noSession;
  let closeStore = true;
  try {
    let id = wanted;
    let fellBack: string | undefined;
    if (id !== undefined) {
      const ref = await resolveSessionId(ctx, id);
      if (!ref.ok) return ref.error;
      id = ref.value;
    } else {
      // --last: the newest listed session of this project, else the newest
      // of any folder (said so); damaged rows are named.
      const damaged: DamagedSessionRow[] = [];
      const listed = listSqliteSessions(path.value, { damaged })
        .filter((r) => r.engaged);
      ctx.io.stderr.write(damagedRowsNotice(damaged));
      const folder = await projectFolder(ctx);
      const here = listed.find((r) => inProject(r, folder));
      const newest = here ?? listed[0];
      id = newest?.id;
      if (here === undefined && newest !== undefined) {
        fellBack = `No session in ${
          stripControl(folder)
        }: resuming the newest session, from ${
          stripControl(shownFolder(newest.workingDir, ctx.io.env("HOME")))
        }\n`;
      }
    }
    let loaded: LoadedSession | undefined;
    try {
      loaded = id === undefined ? undefined : store.load(id);
    } catch (e) {
      const damaged = id === undefined ? undefined : damagedSessionFault(id, e);
      if (damaged === undefined) throw e;
      return damaged;
    }
    if (id === undefined || loaded === undefined) return noSession;
    if (fellBack !== undefined && !ctx.globals.json && !ctx.globals.quiet) {
      ctx.io.stderr.write(fellBack);
    }
    const stored = loaded.record.agentSnapshot;
    if (stored === undefined) {
      return fault(
        "invalid_agent",
        `Session ${id} has no stored agent to resume with`,
      );
    }
    // A reseat runs the stored agent on the chosen model (its providers
    // are wired for it); the stored snapshot is unchanged.
    const reseat = command.reseat;
    const agent = reseat === undefined ? stored : { ...stored, ...reseat };
    const wiring = await wireProviders(agent, {
      providers: config.value.resolved.providers,
      env: (n) => ctx.io.env(n),
      cwd: ctx.cwd,
      promptCaching: config.value.resolved.chat.promptCaching.value,
      limits: streamLimitsOf(config.value.resolved.chat),
      ...(command.fixture === undefined ? {} : { fixture: command.fixture }),
      ...(command.record === undefined ? {} : { record: command.record }),
      ...(ctx.io.fetch === undefined ? {} : { fetch: ctx.io.fetch }),
      ...(ctx.io.resolveDns === undefined
        ? {}
        : { resolveDns: ctx.io.resolveDns }),
    });
    if (!wiring.ok) return wiring.error;
    writeNotices(ctx, [...config.value.trustNotices, ...wiring.value.warnings]);
    const context = loaded.record.context;
    const where = await locateConfig({
      cwd: context.workingDir,
      env: (n) => ctx.io.env(n),
    });
    const projectRoot = where.ok ? where.value.projectRoot : undefined;
    const relaviumDir = config.value.paths.relaviumDir;
    const interactive = !ctx.globals.json && ctx.io.stdinIsTerminal &&
      ctx.io.stdoutIsTerminal && !isCi((n) => ctx.io.env(n));
    const reader = carried?.reader ?? await openChatReader(ctx.io, {
      interactive,
      workspace: context.workingDir,
    });
    // Prompts wait for the events before them to be printed.
    const current: { live?: PersistedSession } = {};
    const hooks = createTerminalHooks(() =>
      current.live?.events.settled() ?? Promise.resolve()
    );
    const settle = hooks.settle;
    const registry = await sessionTools(agent, {
      context,
      ...(projectRoot === undefined ? {} : { projectRoot }),
      ...(relaviumDir === undefined ? {} : { relaviumDir }),
      guardrails: chatGuardrails(config.value),
      commandTimeoutMs: config.value.resolved.chat.commandTimeoutMs.value,
      secrets: wiring.value.secrets,
      ...(interactive
        ? { gate: createGatePrompt(ctx.io, reader, settle) }
        : {}),
    }, interactive);
    if (!registry.ok) return registry.error;
    const modes = buildModes(registry.value, {
      mode: command.mode ?? "ask",
      ...(interactive
        ? { approver: createApprover(ctx.io, reader, settle) }
        : {}),
    });
    const printer = printerFor(ctx, {
      primaryModel: agent.model,
      hints: true,
      turnSummary: interactive,
      memory: agent.memory?.type,
      terminal: interactive,
    });
    hooks.attach(printer);
    const resumed = resumeSession({
      store,
      sessionId: id,
      ...(reseat === undefined ? {} : { reseat }),
      ...hostOptions(ctx, {
        ...hooks.observe(
          withBudgetNotices(
            buildHostDeps(
              config.value,
              wiring.value,
              registry.value,
              ctx.io.sleep,
            ),
            (t) => ctx.io.stderr.write(t),
          ),
        ),
        interactive,
      }),
    });
    if (!resumed.ok) {
      const why = resumed.error;
      if (why.kind === "held") return fault("session_busy", why.message);
      return why.kind === "not_found" ? noSession : fault(
        "internal",
        `Session ${id} cannot be resumed: its stored state is invalid`,
      );
    }
    const live: PersistedSession = resumed.value;
    current.live = live;
    const maxMessages = config.value.resolved.chat.maxMessages?.value;
    const drained = pumpEvents(live, printer);
    if (!ctx.globals.json && !ctx.globals.quiet) {
      const n = live.session.turnCount;
      ctx.io.stderr.write(
        `Resumed session ${id} (${agent.id}, ${agent.model}) in ${
          stripControl(shownFolder(context.workingDir, ctx.io.env("HOME")))
        }: ${n} prior turn${
          n === 1 ? "" : "s"
        }, mode ${modes.mode}. Earlier tool calls and file contents are not carried over.\n`,
      );
    }
    closeStore = false;
    let next: { model: string; provider: string } | undefined;
    try {
      const code = await runChatLoop({
        ctx,
        live,
        store,
        printer,
        modes,
        reader,
        interactive,
        ...(interactive
          ? {
            prepareLine: userLineHandler(
              ctx.io,
              live.session,
              modes,
              registry.value,
            ),
          }
          : {}),
        ...(wiring.value.replay === undefined
          ? {}
          : { replay: wiring.value.replay }),
        ...(maxMessages === undefined ? {} : { maxMessages }),
        model: { model: agent.model, provider: agent.provider },
        ...(interactive ? { onReseat: (to) => void (next = to) } : {}),
      });
      await drained;
      const recorded = await finishRecording(ctx, wiring.value.recorder);
      if (next !== undefined && recorded) {
        return await continueOn(ctx, id, next, reader);
      }
      return recorded ? code : 1;
    } finally {
      store.close();
    }
  } finally {
    if (closeStore) store.close();
  }
}

/**
 * `/model <id>`: the chat that asked has ended its session instance (its
 * lease released); the same session goes on as a new instance on the
 * chosen model, its fallback chain rebuilt, in mode `ask`.
 *
 * @param ctx The command context.
 * @param sessionId The session.
 * @param to The model and its provider.
 * @param reader The chat's reader, carried over (stdin stays open).
 * @returns What the continued chat returns.
 */
export async function continueOn(
  ctx: CommandEnv,
  sessionId: string,
  to: { model: string; provider: string },
  reader: LineReader,
): Promise<CommandResult> {
  ctx.io.stderr.write(
    `Switching session ${sessionId} to ${stripControl(to.model)} (${
      stripControl(to.provider)
    }); the mode is back to ask\n`,
  );
  return await runChatResume(
    { name: "chat-resume", sessionId, last: false, reseat: to },
    ctx,
    { reader },
  );
}
