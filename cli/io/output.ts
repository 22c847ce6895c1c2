/**
 * Printers: the NDJSON event printer (`--json`, stdout only) and the
 * plain printer (model text on stdout, everything else on stderr).
 *
 * @module
 */
import type { SessionEvent } from "../../schema/event.ts";
import { paint } from "./color.ts";
import { createControlStripper } from "./control.ts";
import { turnFailureHint } from "../chat/hints.ts";
import type { CliIo } from "./io.ts";
import type { StatusLine } from "../chat/status.ts";
import type { ToolLines } from "../chat/tool_line.ts";
import type { MarkdownRenderer } from "./markdown.ts";

/** Text from a stored or provider source, as one printable line. */
function oneLine(text: string): string {
  const stripper = createControlStripper();
  return (stripper.push(text) + stripper.flush()).replace(/\s+/g, " ").trim();
}

/** The per-pass bound of a manual compaction over an unknown window. */
const UNKNOWN_WINDOW_PASS_TOKENS = "16,384";

/**
 * The line after a turn: its tokens and cost. An aborted turn reports
 * the tokens known (its own count, or what its calls reported, whichever
 * is more), and says they are unknown when no call reported any.
 */
function turnSummaryLine(
  event: Extract<SessionEvent, { type: "session:turn_completed" }>,
  reported: { input: number; output: number },
  spend: { cost: number; unpriced: boolean },
): string {
  const aborted = event.stopReason === "aborted";
  const input = aborted
    ? Math.max(event.tokensUsed.input, reported.input)
    : event.tokensUsed.input;
  const output = aborted
    ? Math.max(event.tokensUsed.output, reported.output)
    : event.tokensUsed.output;
  const cost = spend.unpriced && spend.cost === 0
    ? "price unknown"
    : `$${(spend.cost / 1e8).toFixed(4)}`;
  const known = `${input} in / ${output} out tokens`;
  if (!aborted) return `[${known}, ${cost}]`;
  return input === 0 && output === 0
    ? "[tokens unknown: the call was stopped before the provider reported its count; it may still be billed]"
    : `[${known} known, ${cost}]`;
}

/**
 * Something that renders session events.
 */
export interface EventPrinter {
  /** Renders one event. */
  print(event: SessionEvent): void;
  /** Finishes output (closes an open stdout line). */
  end(): void;
  /**
   * Optional (the terminal chat): a tool call is about to run; its line
   * is printed now, not when it ended.
   */
  toolStarting?(name: string, args: unknown, secrets?: readonly string[]): void;
  /**
   * Optional (the terminal chat): a retry waits `ms` before it fires,
   * after a failure `why` names (`429 rate limited`), when known.
   */
  backoff?(ms: number, why?: string): void;
  /** Optional (the terminal chat): the retry's wait is over. */
  backoffDone?(): void;
  /**
   * Optional (the terminal chat): something else is about to write to the
   * terminal (a prompt): the status goes and an open line is ended.
   */
  interrupt?(): void;
}

/**
 * The `--json` printer: each event verbatim as one compact JSON line on
 * stdout, nothing else.
 *
 * @param io Where to write.
 * @returns The printer.
 */
export function createNdjsonPrinter(io: CliIo): EventPrinter {
  return {
    print(event) {
      io.stdout.write(`${JSON.stringify(event)}\n`);
    },
    end() {},
  };
}

/**
 * Options of {@linkcode createPlainPrinter}.
 */
export interface PlainPrinterOptions {
  /** Colour stderr annotations. */
  color: boolean;
  /** Suppress informational notices. */
  quiet: boolean;
  /** Also report reasoning and costs on stderr. */
  verbose: boolean;
  /** The configured primary model; a turn served by another prints `via`. */
  primaryModel?: string;
  /** The engine's fixed possible-overflow text (validation hint). */
  possibleOverflowMessage?: string;
  /** The agent's memory policy: overflow hints respect it. */
  memory?: "none" | "window" | "summary";
  /** Print the static recovery hint after a failed turn (default `true`). */
  hints?: boolean;
  /** After each turn, print its tokens and cost (the interactive REPL). */
  turnSummary?: boolean;
  /** How the CLI was invoked, for hints naming a command (see {@linkcode CliIo}). */
  invocation?: () => string;
  /**
   * The terminal chat's output: a live status line (when stderr is a
   * terminal) and tool lines with their target and, once a call ends,
   * its result. Absent (piped, `--json`, one-shot) ⇒ `[tool: <id>]`
   * lines. The model's text on stdout is the same either way.
   */
  terminal?: TerminalParts;
}

/** What the terminal chat's printer draws with. */
export interface TerminalParts {
  /** The status line (absent when stderr is not a terminal). */
  status?: StatusLine;
  /** The clock (for a retry's countdown). */
  now(): number;
  /** The tool lines' formatting (handed in: `--version` never loads it). */
  lines: ToolLines;
  /**
   * Renders the model's markdown for people as it streams (present only
   * when stdout is a terminal; piped text stays raw).
   */
  markdown?: MarkdownRenderer;
}

/**
 * The plain printer: model tokens on stdout with control sequences
 * stripped; tool calls annotated by tool id only (never arguments), failed
 * turns as `[turn failed: <code>]` plus the static hint, and notices, all
 * on stderr.
 *
 * @param io Where to write.
 * @param options Colour, verbosity and the primary model.
 * @returns The printer.
 */
export function createPlainPrinter(
  io: CliIo,
  options: PlainPrinterOptions,
): EventPrinter {
  const stripper = createControlStripper();
  let primary = options.primaryModel;
  let turnCost = 0;
  let turnUnpriced = false;
  // Tokens the turn's priced calls reported (an aborted turn's own count
  // may leave them out).
  let turnTokens = { input: 0, output: 0 };
  let lineOpen = false;
  const term = options.terminal;
  let model = options.primaryModel ?? "the model";
  // Tool lines printed when a call started, awaiting their event.
  let started = 0;
  const md = term?.markdown;
  const closeLine = (): void => {
    term?.status?.clear();
    const tail = stripper.flush();
    const rest = md === undefined ? tail : md.push(tail) + md.flush();
    if (rest !== "") {
      io.stdout.write(rest);
      lineOpen = !rest.endsWith("\n");
    }
    if (lineOpen) io.stdout.write("\n");
    lineOpen = false;
  };
  const text = (chunk: string): void => {
    // The status goes as soon as the model's text streams.
    term?.status?.clear();
    io.stdout.write(chunk);
    lineOpen = !chunk.endsWith("\n");
  };
  const toolLine = (line: string): void => {
    closeLine();
    io.stderr.write(`${line}\n`);
  };
  const note = (
    text: string,
    style: "dim" | "yellow" | "red" = "dim",
  ): void => {
    closeLine();
    io.stderr.write(`${paint(style, text, options.color)}\n`);
  };
  const info = (text: string): void => {
    if (!options.quiet) note(text);
  };
  return {
    print(event) {
      switch (event.type) {
        case "agent:token": {
          model = event.model;
          const plain = stripper.push(event.token);
          // A line streams plain, then is redrawn rendered once complete.
          const shown = md === undefined ? plain : md.push(plain);
          if (shown !== "") text(shown);
          return;
        }
        case "agent:reasoning":
          if (term?.status !== undefined && !lineOpen) {
            term.status.show({ kind: "thinking", model: event.model });
          }
          return;
        case "agent:tool_call":
          if (term === undefined) note(`[tool: ${event.toolId}]`);
          else if (started > 0) started--;
          else {
            toolLine(
              term.lines.toolStartLine(event.toolId, event.toolInput, options),
            );
          }
          return;
        case "agent:tool_result":
          if (term !== undefined) {
            toolLine(
              term.lines.toolResultLine(
                event.success,
                event.outputSummary,
                options,
              ),
            );
            term.status?.show({ kind: "model", model });
          } else if (!event.success && options.verbose) {
            note(`[tool ${event.toolId}: no success]`);
          }
          return;
        case "agent:approval_requested":
          // The question starts on its own line.
          closeLine();
          return;
        case "cost:updated":
          turnCost += event.costMicrocents;
          turnTokens = {
            input: turnTokens.input + event.inputTokens,
            output: turnTokens.output + event.outputTokens,
          };
          if (!event.priced) turnUnpriced = true;
          if (event.usageUnknown === true) {
            note(
              `[usage unknown: ${
                oneLine(event.model)
              } sent no token counts; the cost cap counts its estimate, ${
                event.priced
                  ? `$${(event.costMicrocents / 1e8).toFixed(4)}`
                  : "price unknown"
              }]`,
              "yellow",
            );
          }
          if (options.verbose) {
            note(
              `[cost: ${event.model} ${event.inputTokens} in / ${event.outputTokens} out${
                event.priced ? "" : ", price unknown"
              }]`,
            );
          }
          return;
        case "session:started":
          primary ??= event.model;
          return;
        case "session:turn_started":
          turnCost = 0;
          turnUnpriced = false;
          turnTokens = { input: 0, output: 0 };
          started = 0;
          term?.status?.show({ kind: "model", model });
          return;
        case "session:turn_completed": {
          closeLine();
          if (event.stopReason === "error" && event.error !== undefined) {
            const hint = options.hints === false ? undefined : turnFailureHint(
              event.error.code,
              event.error.message,
              {
                ...(options.possibleOverflowMessage === undefined ? {} : {
                  possibleOverflowMessage: options.possibleOverflowMessage,
                }),
                ...(options.memory === undefined
                  ? {}
                  : { memory: options.memory }),
                ...(options.invocation === undefined
                  ? {}
                  : { command: options.invocation() }),
              },
            );
            // The engine's message (for a provider failure: the provider's
            // own text, scrubbed), then the fix that applies on its own line.
            note(
              `[turn failed: ${event.error.code}] ${
                oneLine(event.error.message)
              }`,
              "red",
            );
            if (options.verbose && event.error.correlationId !== undefined) {
              note(`[request id: ${oneLine(event.error.correlationId)}]`);
            }
            if (hint !== undefined) note(hint);
          } else if (event.stopReason === "aborted") {
            note("[turn aborted]", "yellow");
          }
          const served = event.tokensUsed.model;
          if (
            served !== undefined && primary !== undefined && served !== primary
          ) {
            info(`(via ${served})`);
          }
          if (options.turnSummary === true) {
            info(turnSummaryLine(event, turnTokens, {
              cost: turnCost,
              unpriced: turnUnpriced,
            }));
          }
          // On a terminal, a blank line sets each exchange apart.
          if (term !== undefined) io.stderr.write("\n");
          return;
        }
        case "session:cancelled":
          closeLine();
          return;
        case "session:exported":
          info(`Exported to ${event.workflowPath}`);
          return;
        // An MCP server's failure is a stderr notice already.
        case "session:mcp_server":
          return;
        case "session:compacting":
          info(
            event.windowUnknown === true
              ? `Compacting the conversation… (the model's context window is unknown: each summary pass is limited to ${UNKNOWN_WINDOW_PASS_TOKENS} estimated tokens)`
              : "Compacting the conversation…",
          );
          return;
        // `/compact` and `/trim` report their own outcome (slash_context.ts).
        case "session:compacted":
          if (event.reason === "manual") return;
          info(
            `Compacted: ${event.tokensBefore} → ${event.tokensAfter} tokens`,
          );
          return;
        case "session:compaction_failed":
          if (event.reason === "manual") return;
          note(`Compaction failed: ${event.error.code}`, "yellow");
          return;
        case "session:compaction_budget_refused":
          note("Compaction refused: the cost cap would be exceeded", "yellow");
          return;
        case "session:trimmed":
          if (event.reason === "manual") return;
          info(
            `Trimmed ${event.droppedMessageCount} messages (kept ${event.keptMessageCount})`,
          );
          return;
        default: {
          const never: never = event;
          return never;
        }
      }
    },
    end() {
      closeLine();
    },
    ...(term === undefined ? {} : {
      toolStarting(name: string, args: unknown, secrets?: readonly string[]) {
        started++;
        const line = term.lines.toolStartLine(name, args, {
          color: options.color,
          ...(secrets === undefined ? {} : { secrets }),
        });
        toolLine(line);
        term.status?.show({
          kind: "tool",
          tool: term.lines.toolCallText(name, args, secrets),
        });
      },
      backoff(ms: number, why?: string) {
        closeLine();
        term.status?.show({
          kind: "retry",
          model,
          atMs: term.now() + ms,
          ...(why === undefined ? {} : { why }),
        });
      },
      backoffDone() {
        if (term.status?.wait?.kind === "retry") {
          term.status.show({ kind: "model", model });
        }
      },
      interrupt() {
        closeLine();
      },
    }),
  };
}
