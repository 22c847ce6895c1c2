/**
 * `/compact` and `/trim [n]`: run the
 * engine's manual compaction or trim on the live session and report the
 * outcome on stderr (every output mode): tokens before and after, the
 * summariser's spend and the summary, or the refusal. Nothing is changed
 * unless the report says so; raw history is never deleted.
 *
 * @module
 */
import type { AgentSession } from "../../session/session.ts";
import { SessionStateError } from "../../session/errors.ts";
import type { CompactionResult, TrimResult } from "../../session/mod.ts";
import { stripControl } from "../io/control.ts";
import { formatCost, priceText } from "../commands/cost_report.ts";

/**
 * What `/compact` and `/trim` work on.
 */
export interface ContextCommandHost {
  /** The live session (idle between turns). */
  session: Pick<
    AgentSession,
    | "compact"
    | "trimHistory"
    | "trimRefusal"
    | "compactionRefusal"
    | "cumulativeCostMicrocents"
  >;
  /** `[chat].max_messages`: the bound of a bare `/trim`. */
  maxMessages?: number;
  /** Where the report goes (stderr). */
  write(text: string): void;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function indent(text: string): string {
  return stripControl(text).split("\n").map((l) => `  ${l}`).join("\n");
}

/**
 * The report of a `/compact` outcome.
 *
 * @param result What `compact()` returned.
 * @param spentMicrocents What the summariser calls cost (session spend
 * after minus before).
 * @returns The text, ending with a newline.
 */
export function compactReport(
  result: CompactionResult,
  spentMicrocents: number,
): string {
  const spent = spentMicrocents > 0
    ? ` (summary calls so far cost ${formatCost(spentMicrocents)})`
    : "";
  switch (result.kind) {
    case "compacted": {
      const { input, output } = result.summaryTokens;
      return [
        `Compacted: the model's context went from about ${result.tokensBefore} to ${result.tokensAfter} tokens; kept the latest ${
          plural(result.keptMessageCount, "message")
        } verbatim, the earlier ones are now a summary.`,
        `Summary cost: ${
          priceText(spentMicrocents, input + output)
        } (${input} input, ${output} output tokens).`,
        "Summary:",
        indent(result.summary),
        "",
      ].join("\n");
    }
    case "nothing_to_compact":
      return "Nothing to compact: there is nothing before the latest exchange to summarise. Nothing changed.\n";
    case "failed":
      return `Compaction failed: ${result.message}. Nothing changed${spent}.\n`;
    case "cancelled":
      return `Compaction stopped. Nothing changed${spent}.\n`;
    case "budget_refused":
      return `Compaction not run: ${result.message}. Nothing changed${spent}; raise [chat].max_cost_microcents to allow it.\n`;
    case "policy_refused":
      return `${result.message}.\n`;
    default: {
      const never: never = result;
      return never;
    }
  }
}

/**
 * Runs `/compact`: a manual compaction; Ctrl-C (which aborts the
 * session's running work) stops it with nothing installed.
 *
 * @param host The session and where to report.
 * @returns Resolves when the report is written.
 */
export async function runSlashCompact(host: ContextCommandHost): Promise<void> {
  const before = host.session.cumulativeCostMicrocents;
  let result: CompactionResult;
  try {
    result = await host.session.compact();
  } catch (e) {
    if (!(e instanceof SessionStateError)) throw e;
    host.write(`/compact: ${e.message}\n`);
    return;
  }
  host.write(
    compactReport(result, host.session.cumulativeCostMicrocents - before),
  );
}

/**
 * The report of a `/trim` outcome.
 *
 * @param result What `trimHistory(n)` returned.
 * @param bound The `n` it was given.
 * @returns The text, ending with a newline.
 */
export function trimReport(result: TrimResult, bound: number): string {
  switch (result.kind) {
    case "trimmed":
      return `Trimmed: ${
        plural(result.droppedMessageCount, "earlier message")
      } no longer sent to the model; kept the latest ${
        plural(result.keptMessageCount, "message")
      } (${
        plural(result.keptTurnCount, "turn")
      }). The stored transcript keeps them (chat-show lists the boundary).\n`;
    case "nothing_to_trim":
      return `Nothing to trim: the context is already within the ${bound}-message limit (${
        plural(result.messageCount, "message")
      }).\n`;
    case "policy_refused":
      return `${result.message}.\n`;
    default: {
      const never: never = result;
      return never;
    }
  }
}

const WHOLE = /^[1-9][0-9]*$/;

/**
 * Runs `/trim [n]`: drop whole turns from the front of the model's
 * context, keeping about `n` trailing messages (default
 * `[chat].max_messages`). No bound ⇒ an actionable notice naming the key
 * (and `/compact` where the memory policy allows it); nothing is changed.
 *
 * @param arg The argument, if any.
 * @param host The session, the configured bound and where to report.
 */
export function runSlashTrim(
  arg: string | undefined,
  host: ContextCommandHost,
): void {
  const { session } = host;
  const refusal = session.trimRefusal;
  if (refusal !== undefined) {
    host.write(`${refusal.message}.\n`);
    return;
  }
  let bound: number;
  if (arg === undefined) {
    if (host.maxMessages === undefined) {
      const compact = session.compactionRefusal === undefined
        ? "; or /compact to summarise earlier turns instead of dropping them"
        : "";
      host.write(
        `/trim needs a bound: /trim <n> keeps about the last n messages, or set [chat].max_messages in your config for a bare /trim${compact}. Nothing changed.\n`,
      );
      return;
    }
    bound = host.maxMessages;
  } else {
    bound = WHOLE.test(arg) ? Number(arg) : Number.NaN;
    if (!Number.isSafeInteger(bound)) {
      host.write(
        "/trim takes a positive whole number of messages to keep. Nothing changed.\n",
      );
      return;
    }
  }
  let result: TrimResult;
  try {
    result = session.trimHistory(bound);
  } catch (e) {
    if (!(e instanceof SessionStateError)) throw e;
    host.write(`/trim: ${e.message}\n`);
    return;
  }
  host.write(trimReport(result, bound));
}
