/**
 * `chat-resume <id> | --last`: reload a stored session with
 * its stored agent and context (text-only history), in mode `ask` with an
 * empty approval cache, and run the line loop. Lands idle, without
 * `session:started`.
 *
 * @module
 */
import { resumeSession } from "../../host/host.ts";
import type { CliCommand } from "../args.ts";
import type { CommandEnv, CommandResult } from "../command_env.ts";
import { type CliFault, fault } from "../fault.ts";
import {
  damagedRowsNotice,
  damagedSessionFault,
  listExistingHistory,
  openRunHistory,
} from "../run/history.ts";
import type { DamagedSessionRow } from "../../store/sqlite_list.ts";
import type { LoadedSession } from "../../store/store.ts";
import { loadRunConfig, prepareRun } from "../run/session_setup.ts";
import { locateConfig } from "../config/config.ts";
import type { LineReader } from "../io/stdin.ts";
import { stripControl } from "../io/control.ts";
import { openChatFrame, openLineChat, runLineChat } from "../run/line_chat.ts";
import { shownFolder } from "./chat_list.ts";
import { messageText, projectStructure } from "../../store/projection.ts";
import { recapText } from "../chat/recap.ts";
import { withoutFrames } from "../chat/inject.ts";
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
  const opened = await openRunHistory(ctx, config.value.paths, false);
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
      const all = await listExistingHistory(ctx, damaged);
      if (!all.ok) return all.error;
      // A session with no completed turn (its only turn failed, e.g. a
      // refused connection) is listed, but holds nothing to go on with.
      const listed = (all.value ?? []).filter((r) => r.turns > 0);
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
      loaded = id === undefined ? undefined : await store.load(id);
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
    const context = loaded.record.context;
    const where = await locateConfig({
      cwd: context.workingDir,
      env: (n) => ctx.io.env(n),
    });
    const projectRoot = where.ok ? where.value.projectRoot : undefined;
    const frame = await openChatFrame(
      ctx,
      context.workingDir,
      carried?.reader,
    );
    const { interactive, reader } = frame;
    const prep = await prepareRun(ctx, {
      config: config.value,
      agent,
      context,
      ...(projectRoot === undefined ? {} : { projectRoot }),
      notices: config.value.trustNotices,
    }, {
      ...(command.fixture === undefined ? {} : { fixture: command.fixture }),
      ...(command.record === undefined ? {} : { record: command.record }),
      ...(frame.gate === undefined ? {} : { gate: frame.gate }),
      userTools: interactive,
    });
    if (!prep.ok) return prep.error;
    const run = prep.value;
    const chat = await openLineChat(
      ctx,
      { run, store, frame, mode: command.mode },
      async (host) => {
        const resumed = await resumeSession({
          ...host,
          sessionId: id,
          ...(reseat === undefined ? {} : { reseat }),
        });
        if (resumed.ok) return resumed;
        const why = resumed.error;
        if (why.kind === "held") {
          return { ok: false, error: fault("session_busy", why.message) };
        }
        return {
          ok: false,
          error: why.kind === "not_found" ? noSession : fault(
            "internal",
            `Session ${id} cannot be resumed: its stored state is invalid`,
          ),
        };
      },
    );
    if (!chat.ok) return chat.error;
    const { modes } = chat.value;
    // Turns are completed turns (an answer stored), as chat-list and
    // chat-show count them.
    const turns = projectStructure(loaded.messages, { honourBoundary: false })
      .turns;
    if (!ctx.globals.json && !ctx.globals.quiet) {
      const n = turns.length;
      ctx.io.stderr.write(
        `Resumed session ${id} (${agent.id}, ${agent.model}) in ${
          stripControl(shownFolder(context.workingDir, ctx.io.env("HOME")))
        }: ${n} prior turn${
          n === 1 ? "" : "s"
        }, mode ${modes.mode}. Earlier tool calls and file contents are not carried over.\n`,
      );
      if (interactive) {
        ctx.io.stderr.write(recapText(
          turns.map((t) => ({
            user: withoutFrames(messageText(t.user)),
            assistant: messageText(t.terminal),
          })),
          ctx.color,
        ));
      }
    }
    closeStore = false;
    try {
      const end = await runLineChat(ctx, chat.value, { run, store, frame });
      if (end.reseat !== undefined && end.recorded) {
        return await continueOn(ctx, id, end.reseat, reader);
      }
      return end.recorded ? end.code : 1;
    } finally {
      await store.close();
    }
  } finally {
    if (closeStore) await store.close();
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
