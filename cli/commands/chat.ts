/**
 * `chat`: start a persisted session in `history.db` and
 * run the line loop. No `--agent` ⇒ the built-in read-only chat agent on
 * the resolved default model.
 *
 * @module
 */
import { openSession } from "../../host/host.ts";
import type { CliCommand } from "../args.ts";
import type { CommandEnv, CommandResult } from "../command_env.ts";
import { fault } from "../fault.ts";
import { openRunHistory } from "../run/history.ts";
import { storeFaultMessage } from "../../store/sqlite_file.ts";
import { prepareNewRun } from "../run/session_setup.ts";
import { offerTrust } from "../chat/trust_prompt.ts";
import { openChatFrame, openLineChat, runLineChat } from "../run/line_chat.ts";

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
  const frame = await openChatFrame(ctx, ctx.cwd);
  const { interactive, reader } = frame;
  // A project file asking for more than the user granted is offered for
  // trust once, on a terminal, before its settings are read for the run.
  if (interactive) await offerTrust(ctx, reader);
  const prep = await prepareNewRun(ctx, {
    ...command,
    ...(interactive ? { userTools: true } : {}),
    ...(frame.gate === undefined ? {} : { gate: frame.gate }),
    // An agent file's own MCP stdio servers are offered for approval.
    ...(interactive
      ? {
        approveMcp: async (input) =>
          await (await import("../run/mcp_approve.ts")).askMcpApproval(
            ctx,
            reader,
            input,
          ),
      }
      : {}),
  });
  if (!prep.ok) return prep.error;
  const run = prep.value;
  const opened = await openRunHistory(ctx, run.config.paths, true);
  if (!opened.ok) return opened.error;
  const store = opened.value;
  if (store === undefined) return fault("internal", "History store missing");
  const chat = await openLineChat(
    ctx,
    { run, store, frame, mode: command.mode },
    async (host) => {
      try {
        return {
          ok: true,
          value: await openSession({
            ...host,
            agent: run.agent,
            context: run.context,
          }),
        };
      } catch (e) {
        const why = e instanceof Error ? e.name : "unknown error";
        return {
          ok: false,
          error: fault(
            "internal",
            storeFaultMessage(e) ?? `Cannot create the session: ${why}`,
          ),
        };
      }
    },
  );
  if (!chat.ok) {
    await store.close();
    return chat.error;
  }
  const { live } = chat.value;
  await live.events.settled();
  if (!ctx.globals.json && !ctx.globals.quiet) {
    ctx.io.stderr.write(
      `Session ${live.sessionId} (${run.agent.id}, ${run.agent.model})${
        interactive ? " · /help for commands, /exit to leave" : ""
      }\n`,
    );
  }
  try {
    const end = await runLineChat(ctx, chat.value, { run, store, frame });
    if (end.reseat !== undefined && end.recorded) {
      const { continueOn } = await import("./chat_resume.ts");
      return await continueOn(ctx, live.sessionId, end.reseat, reader);
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
    return end.recorded ? end.code : 1;
  } finally {
    await store.close();
  }
}
