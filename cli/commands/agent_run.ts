/**
 * `agent run <agent>`: one turn with all of
 * stdin as the prompt (one trailing newline removed; empty ⇒ exit 2), on
 * an in-memory store (nothing reaches `history.db`). Same stream grammar
 * as `chat`: `session:started` → one turn → `session:cancelled`. Exit 0,
 * or 1 when the turn ended in error or the cassette faulted.
 *
 * @module
 */
import { openSession, type PersistedSession } from "../../host/host.ts";
import { createMemoryStore } from "../../store/memory_store.ts";
import type { CliCommand } from "../args.ts";
import type { CommandEnv, CommandResult } from "../command_env.ts";
import { fault } from "../fault.ts";
import { prepareNewRun } from "../run/session_setup.ts";
import { finishRecording } from "../run/record_exit.ts";
import { printerFor, writeNotices } from "../run/session_io.ts";
import { hostOptions, pumpEvents } from "../run/host_options.ts";
import { readAllText } from "../io/stdin.ts";
import { buildModes } from "../run/modes.ts";
import { withBudgetNotices } from "../run/window_settings.ts";

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
  const prep = await prepareNewRun(ctx, command);
  if (!prep.ok) return prep.error;
  const run = prep.value;
  const prompt = promptFromStdin(await readAllText(ctx.io.stdin));
  if (prompt === undefined) {
    return fault(
      "empty_input",
      "Empty prompt: agent run reads the prompt from stdin",
    );
  }
  writeNotices(ctx, run.notices);
  const printer = printerFor(ctx, {
    primaryModel: run.agent.model,
    hints: false,
  });
  const live: PersistedSession = openSession({
    store: createMemoryStore(),
    agent: run.agent,
    context: run.context,
    // One turn: no after-turn compaction.
    ...hostOptions(ctx, {
      ...withBudgetNotices(run.deps, (t) => ctx.io.stderr.write(t)),
      afterTurnCompaction: false,
    }),
  });
  const drained = pumpEvents(live, printer);
  let signalCode: number | undefined;
  const onSignal = (code: number) => (): void => {
    signalCode ??= code;
    live.session.cancel();
  };
  const unsubscribe = [
    ctx.io.onSignal("SIGINT", onSignal(130)),
    ctx.io.onSignal("SIGTERM", onSignal(143)),
  ];
  // No approver: governed actions are denied except under --mode auto.
  const modes = buildModes(run.registry, { mode: command.mode ?? "ask" });
  live.session.setTurnPolicy(modes.policy);
  let failed = false;
  try {
    const result = await live.session.sendMessage(prompt);
    failed = result.kind === "failed";
  } finally {
    for (const off of unsubscribe) off();
    live.close();
    await drained;
    printer.end();
  }
  const faults = run.replay?.finalFaults() ?? [];
  for (const f of faults) ctx.io.stderr.write(`error: cassette: ${f}\n`);
  const recorded = await finishRecording(ctx, run.recorder);
  if (signalCode !== undefined) return signalCode;
  return failed || faults.length > 0 || !recorded ? 1 : 0;
}
