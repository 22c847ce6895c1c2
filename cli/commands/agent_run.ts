/**
 * `agent run [<agent>] [<prompt>]`: one turn, on an in-memory store
 * (nothing reaches `history.db`). No agent ⇒ the built-in chat agent.
 * The prompt is the argument, or all of stdin without one (one trailing
 * newline removed); with both, stdin's text (when stdin is not a
 * terminal and brings any) follows the argument after a blank line, as
 * context. An empty prompt ⇒ exit 2. Same stream grammar as `chat` under
 * `--json`: `session:started` → one turn → `session:cancelled`; under
 * `--output json` the answer is not streamed and stdout gets one
 * {@linkcode OneShotRecord} when the turn ends. Exit 0, or 1 when the
 * turn ended in error or the cassette faulted.
 *
 * @module
 */
import { openSession } from "../../host/host.ts";
import { createMemoryStore } from "../../store/memory_store.ts";
import type { CliCommand } from "../args.ts";
import type { CommandEnv, CommandResult } from "../command_env.ts";
import { type CliFault, fault } from "../fault.ts";
import { classifyAgentRef } from "../run/agent_file.ts";
import { prepareNewRun } from "../run/session_setup.ts";
import { openChat } from "../run/open_chat.ts";
import { readStdinText } from "../io/stdin.ts";
import type { CliIo, TextSink } from "../io/io.ts";
import type { TurnResult } from "../../session/turn_result.ts";
import { oneShotHint, oneShotRecord } from "./agent_run_result.ts";

/**
 * The prompt from stdin: one trailing newline (`\n` or `\r\n`) removed.
 *
 * @param text All of stdin.
 * @returns The prompt, or `undefined` when it is empty or whitespace.
 */
export function promptFromStdin(text: string): string | undefined {
  const prompt = text.endsWith("\r\n")
    ? text.slice(0, -2)
    : text.endsWith("\n")
    ? text.slice(0, -1)
    : text;
  return prompt.trim() === "" ? undefined : prompt;
}

/**
 * The turn's prompt: the argument, with stdin's text after a blank line
 * when stdin is not a terminal and brings any; without an argument, all
 * of stdin.
 *
 * @param argument The prompt argument, if given.
 * @param ctx The command context (stdin).
 * @returns The prompt, or `undefined` when it is empty.
 */
async function readPrompt(
  argument: string | undefined,
  ctx: CommandEnv,
): Promise<string | undefined> {
  if (argument === undefined) {
    return promptFromStdin(await readStdinText(ctx.io));
  }
  if (ctx.io.stdinIsTerminal) return argument;
  const piped = promptFromStdin(await readStdinText(ctx.io));
  return piped === undefined ? argument : `${argument}\n\n${piped}`;
}

/**
 * A lone kebab-case word is taken as an agent id; when no such agent
 * exists, the fault says how a one-word prompt reaches the built-in agent.
 *
 * @param command The parsed command.
 * @param f The fault of preparing the run.
 * @returns The fault, with the hint when it applies.
 */
function loneWordHint(
  command: Extract<CliCommand, { name: "agent-run" }>,
  f: CliFault,
): CliFault {
  const agent = command.agent;
  if (
    f.code !== "not_found" || command.prompt !== undefined ||
    agent === undefined || classifyAgentRef(agent).kind !== "id"
  ) {
    return f;
  }
  return fault(
    f.code,
    `${f.message} (a one-word prompt for the built-in agent goes on stdin)`,
  );
}

/**
 * The io with a stdout that drops what it is given (getters kept).
 *
 * @param io The command's io.
 * @returns The io seen by a printer that must leave stdout alone.
 */
function withoutStdout(io: CliIo): CliIo {
  const sink: TextSink = { write: () => {} };
  return Object.create(io, { stdout: { value: sink } });
}

/**
 * Runs `agent run`.
 *
 * @param command The parsed command.
 * @param ctx The command context.
 * @returns 0 / 1 / 130 / 143, or a pre-session fault (exit 2).
 */
export async function runAgentRun(
  command: Extract<CliCommand, { name: "agent-run" }>,
  ctx: CommandEnv,
): Promise<CommandResult> {
  const prep = await prepareNewRun(ctx, {
    ...command,
    // An agent file's own MCP stdio servers: a terminal asks, as in chat.
    approveMcp: async (input) =>
      await (await import("../run/mcp_approve.ts")).askMcpApprovalOnTerminal(
        ctx,
        input,
      ),
  });
  if (!prep.ok) return loneWordHint(command, prep.error);
  const run = prep.value;
  const prompt = await readPrompt(command.prompt, ctx);
  if (prompt === undefined) {
    return fault(
      "empty_input",
      "Empty prompt: give it as an argument or on stdin",
    );
  }
  const oneShot = command.output === "json";
  // The model's text, for the record of a turn that did not complete.
  let written = "";
  const opened = await openChat(ctx, {
    run,
    store: createMemoryStore(),
    // No approver: governed actions are denied except under --mode auto.
    mode: command.mode ?? "ask",
    // Under --output json the answer is not streamed: stdout holds only the
    // final record; stderr's lines stay.
    printer: {
      hints: false,
      ...(oneShot ? { ctx: { ...ctx, io: withoutStdout(ctx.io) } } : {}),
    },
    // One turn: no after-turn compaction.
    settings: { afterTurnCompaction: false },
    observe(event) {
      if (event.type === "agent:token") written += event.token;
    },
    open: async (host) => ({
      ok: true,
      value: await openSession({
        ...host,
        agent: run.agent,
        context: run.context,
      }),
    }),
  });
  if (!opened.ok) return opened.error;
  const { live, printer, modes, drained } = opened.value;
  let signalCode: number | undefined;
  const onSignal = (code: number) => (): void => {
    signalCode ??= code;
    live.session.cancel();
  };
  const unsubscribe = [
    ctx.io.onSignal("SIGINT", onSignal(130)),
    ctx.io.onSignal("SIGTERM", onSignal(143)),
  ];
  live.session.setTurnPolicy(modes.policy);
  let result: TurnResult | undefined;
  try {
    result = await live.session.sendMessage(prompt);
  } finally {
    for (const off of unsubscribe) off();
    live.close();
    await drained;
    printer.end();
  }
  const faults = run.wiring.replay?.finalFaults() ?? [];
  for (const f of faults) ctx.io.stderr.write(`error: cassette: ${f}\n`);
  const recorded = await opened.value.finish();
  if (oneShot) {
    const record = oneShotRecord(
      result,
      live.sessionId,
      run.wiring.secrets,
      written,
    );
    ctx.io.stdout.write(`${JSON.stringify(record)}\n`);
  }
  const hint = oneShotHint(result);
  if (hint !== undefined && !ctx.globals.quiet) {
    ctx.io.stderr.write(`${hint}\n`);
  }
  if (signalCode !== undefined) return signalCode;
  const failed = result?.kind === "failed";
  return failed || faults.length > 0 || !recorded ? 1 : 0;
}
