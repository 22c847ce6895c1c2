/**
 * The CLI's one session opener, shared by `chat`, `chat-resume` and
 * `agent run`: from a prepared run to a live session with its printer,
 * modes, event pump and, when the command ends, its recording. It loads
 * no chat module: a line chat's reader and prompts come in its frame
 * (`line_chat.ts`). Each command keeps only what differs: where the agent and
 * the store come from, and what it does with the live session.
 *
 * @module
 */
import type { HostOptions, PersistedSession } from "../../host/host.ts";
import type { Result } from "../../schema/result.ts";
import type { SessionEvent } from "../../schema/event.ts";
import type { SessionSettings } from "../../session/deps.ts";
import type { AsyncSessionStore, SessionStore } from "../../store/store.ts";
import type { GateHook } from "../../tools/approval.ts";
import type {
  ApprovalDecision,
  ApprovalRequest,
} from "../../tools/registry.ts";
import { createModePolicy, type ModeController } from "../../tools/modes.ts";
import type { ModeName } from "../args.ts";
import type { TerminalHooks } from "../chat/terminal_hooks.ts";
import type { CommandEnv } from "../command_env.ts";
import type { CliFault } from "../fault.ts";
import type { EventPrinter } from "../io/output.ts";
import type { LineReader } from "../io/stdin.ts";
import { hostOptionsOf, type PreparedRun } from "./session_setup.ts";
import { printerFor, writeNotices } from "./session_io.ts";
import type { BudgetNotice } from "../../session/budget.ts";

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
  /** Asks the person about a governed action (an interactive chat). */
  approver?: (request: ApprovalRequest) => Promise<ApprovalDecision>;
  /** Set once the session is open (prompts wait for its events). */
  current: { live?: PersistedSession };
}

/**
 * How one command opens its session.
 */
export interface OpenChatSpec {
  /** The prepared run. */
  run: PreparedRun;
  /** The store the session lives in (Postgres's answers asynchronously). */
  store: SessionStore | AsyncSessionStore;
  /** Opens or resumes the session with the host's options. */
  open(
    host: HostOptions<SessionStore | AsyncSessionStore>,
  ):
    | Result<PersistedSession, CliFault>
    | Promise<Result<PersistedSession, CliFault>>;
  /** `--mode` (default `ask`). */
  mode?: ModeName | undefined;
  /** A line chat's frame; absent for a one-shot. */
  frame?: ChatFrame;
  /** Printer options beyond the model. */
  printer: {
    hints: boolean;
    /** Where it writes; default the command's own context. */
    ctx?: CommandEnv;
    /** Takes the events instead of a terminal printer (`serve`). */
    sink?: EventPrinter;
  };
  /**
   * Answers governed actions when there is no chat frame (`serve`'s
   * approvals over HTTP); a frame's own approver wins.
   */
  approver?: (request: ApprovalRequest) => Promise<ApprovalDecision>;
  /** Engine settings that differ from the config's. */
  settings?: SessionSettings;
  /** Sees each event after the printer (e.g. the text of a one-shot). */
  observe?(event: SessionEvent): void;
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
export async function openChat(
  ctx: CommandEnv,
  spec: OpenChatSpec,
): Promise<Result<OpenedChat, CliFault>> {
  const { run, frame } = spec;
  writeNotices(ctx, run.notices);
  const interactive = frame?.interactive === true;
  const printer = spec.printer.sink ??
    await printerFor(spec.printer.ctx ?? ctx, {
      primaryModel: run.agent.model,
      hints: spec.printer.hints,
      turnSummary: interactive,
      memory: run.agent.memory?.type,
      terminal: interactive,
    });
  frame?.hooks.attach(printer);
  // Without an approver (no terminal) governed actions are refused unless
  // the mode allows them.
  const approver = frame?.approver ?? spec.approver;
  const modes = createModePolicy({
    mode: spec.mode ?? "ask",
    interactive: approver !== undefined,
    isReadOnly: (id) => run.registry?.isReadOnly(id) ?? false,
    ...(approver === undefined ? {} : { approver }),
  });
  // A line chat observes the transport: a retry says what it retries.
  const host = hostOptionsOf(
    ctx,
    run,
    frame === undefined || ctx.io.fetch === undefined
      ? ctx.io.fetch
      : frame.hooks.observeFetch(ctx.io.fetch),
  );
  const settings: SessionSettings = {
    ...host.settings,
    ...spec.settings,
    // A person answers: at the terminal, or through `serve`'s approver.
    interactive: interactive || approver !== undefined,
  };
  if (settings.budget !== undefined) {
    settings.budget = {
      ...settings.budget,
      onNotice: (n) => ctx.io.stderr.write(`${budgetNoticeLine(n)}\n`),
    };
  }
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
  const opened = await spec.open({
    ...host,
    store: spec.store,
    settings,
    ...(tools === undefined ? {} : { tools }),
  });
  if (!opened.ok) {
    void run.close?.();
    return opened;
  }
  const live = opened.value;
  run.attach?.(live);
  if (frame !== undefined) frame.current.live = live;
  const drained = (async () => {
    for await (const event of live.events) {
      printer.print(event);
      spec.observe?.(event);
    }
  })();
  return {
    ok: true,
    value: {
      live,
      printer,
      modes,
      drained,
      async finish(): Promise<boolean> {
        await run.close?.();
        const recorder = run.wiring.recorder;
        if (recorder === undefined) return true;
        const { finishRecording } = await import("./record.ts");
        return await finishRecording(ctx, recorder);
      },
    },
  };
}

/** The stderr line of a budget notice (the governor never writes events). */
function budgetNoticeLine(notice: BudgetNotice): string {
  switch (notice.kind) {
    case "unpriced":
      return `notice: ${notice.model} has no price, so the session cost cap does not apply to it (strict_cost_cap = true refuses it instead)`;
    case "over_cap":
      return `warning: ${notice.message}`;
    default: {
      const never: never = notice;
      return never;
    }
  }
}
