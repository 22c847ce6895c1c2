/**
 * Core slash commands of the chat loop: `/help`, `/exit`,
 * `/cancel`, `/mode`, `/cost`, `/trim [n]`, and `/export` and `/compact`
 * (checked here, run by the loop). Exact names, no aliases; output is
 * human text on stderr in every mode. Commands of later releases answer
 * with one notice.
 *
 * @module
 */
import type { ModeName } from "../args.ts";
import {
  costReport,
  shownCosts,
  shownCoverage,
} from "../commands/cost_report.ts";
import { type ContextCommandHost, runSlashTrim } from "./slash_window.ts";
import {
  type AsyncSessionStore,
  isAsyncStore,
  type SessionStore,
} from "../../store/store.ts";
import { CHAT_MODES } from "../../tools/modes.ts";
import { inferProvider } from "../../llm/provider_table.ts";

/**
 * What the loop does after a slash command: go on, end the chat, write
 * the in-chat export (`/export`) or run a manual compaction (`/compact`),
 * both of which need the live session and run asynchronously.
 */
export type SlashOutcome =
  | "continue"
  | "exit"
  | "export"
  | "compact"
  | "cost"
  | { reseat: { model: string; provider: string } };

/**
 * What a slash command may touch.
 */
export interface SlashContext {
  /** Where human output goes (stderr). */
  write(text: string): void;
  /** The session's id (for `/cost`). */
  sessionId: string;
  /**
   * The store (for `/cost`; an asynchronous one is read by the loop, which
   * gets the `cost` outcome).
   */
  store: SessionStore | AsyncSessionStore;
  /** The current approval mode. */
  mode: ModeName;
  /** Switches the mode for the next turn. */
  setMode(mode: ModeName): void;
  /** The live session for `/trim` (absent ⇒ `/trim` is unavailable). */
  context?: ContextCommandHost;
  /** The model the session runs on (for `/model`). */
  model?: { model: string; provider: string };
  /** Whether a person is at the terminal (`/model <id>` reseats only then). */
  interactive?: boolean;
}

const MODES: ReadonlyArray<[ModeName, string]> = CHAT_MODES.map((
  m,
): [ModeName, string] => [m.mode, m.description]);

const LATER = new Set([
  "models",
  "effort",
  "clear",
  "doctor",
]);

const HELP = `Commands:
  /help              this list
  /exit              end the chat (resumable with chat-resume)
  /cancel            cancel the session, including a running turn
  /mode [mode]       show or switch the approval mode (next turn)
  /model [id [provider]]  show the model, or continue this session on
                     another one (same session id; mode back to ask)
  /cost              spend and tokens of this session, per model
  /compact           summarise the earlier conversation (Ctrl-C stops it)
  /trim [n]          drop earlier turns from the model's context, keeping
                     about n messages (default [chat].max_messages)
  /export            write <id>.relavium.yaml in the current folder

In a message:
  @path              attach a file of the project (inside the jail) to the
                     message, e.g. "explain @src/main.ts"
  !command           run an allowlisted command yourself (the mode applies);
                     its output is sent with your next message

Keys (on a terminal):
  Enter              send the message
  Ctrl-J, Alt-Enter  a new line in the message (or end a line with \\)
  Left/Right Home/End Ctrl-A Ctrl-E   move
  Ctrl-W Ctrl-U Ctrl-K                delete a word, to the start, to the end
  Up/Down            earlier messages (kept in the Relavium home)
  Tab                complete an @path
  Ctrl-L             redraw
  Ctrl-C             clear the line; during a turn (or Esc), stop the turn;
                     twice on an empty line, or Ctrl-D, end the chat
  /cancel            works while a turn runs too, at once
`;

/** What `/cancel` says (the chat ends; the session stays resumable). */
export const CANCELLED_LINE = "Chat cancelled; the session is kept";

/**
 * Runs one slash command line.
 *
 * @param line The input line, starting with `/`.
 * @param ctx Output, session, store and mode.
 * @returns Whether the chat goes on.
 */
export function runSlash(line: string, ctx: SlashContext): SlashOutcome {
  const [word = "", ...args] = line.trim().split(/\s+/);
  const name = word.slice(1);
  const noArgs = (): boolean => {
    if (args.length === 0) return true;
    ctx.write(`/${name} takes no argument\n`);
    return false;
  };
  switch (name) {
    case "help":
      if (noArgs()) ctx.write(HELP);
      return "continue";
    case "exit":
      return noArgs() ? "exit" : "continue";
    case "cancel":
      if (!noArgs()) return "continue";
      ctx.write(`${CANCELLED_LINE}\n`);
      return "exit";
    case "export":
      return noArgs() ? "export" : "continue";
    case "compact":
      return noArgs() ? "compact" : "continue";
    case "trim":
      if (args.length > 1) {
        ctx.write("/trim takes one argument\n");
      } else if (ctx.context === undefined) {
        ctx.write("/trim is not available here\n");
      } else {
        runSlashTrim(args[0], ctx.context);
      }
      return "continue";
    case "mode": {
      if (args.length > 1) {
        ctx.write("/mode takes one argument\n");
        return "continue";
      }
      const wanted = args[0];
      if (wanted === undefined) {
        const lines = MODES.map(([m, d]) =>
          `${m === ctx.mode ? "*" : " "} ${m.padEnd(13)} ${d}`
        );
        ctx.write(`Mode: ${ctx.mode}\n${lines.join("\n")}\n`);
        return "continue";
      }
      const mode = MODES.find(([m]) => m === wanted)?.[0];
      if (mode === undefined) {
        ctx.write(
          `Unknown mode: expected one of ${MODES.map(([m]) => m).join(", ")}\n`,
        );
        return "continue";
      }
      ctx.setMode(mode);
      ctx.write(`Mode: ${mode} (from the next turn)\n`);
      return "continue";
    }
    case "model": {
      const current = ctx.model;
      if (args.length === 0) {
        ctx.write(
          current === undefined
            ? "Model: unknown\n"
            : `Model: ${current.model} (${current.provider})\n`,
        );
        return "continue";
      }
      if (args.length > 2) {
        ctx.write("/model takes a model id and an optional provider\n");
        return "continue";
      }
      if (ctx.interactive !== true) {
        ctx.write("/model <id> switches models only in an interactive chat\n");
        return "continue";
      }
      const [model = "", named] = args;
      const provider = named ?? inferProvider(model) ??
        current?.provider;
      if (provider === undefined) {
        ctx.write(
          `Name the provider of ${model}: /model ${model} <provider>\n`,
        );
        return "continue";
      }
      return { reseat: { model, provider } };
    }
    case "cost": {
      if (!noArgs()) return "continue";
      if (isAsyncStore(ctx.store)) return "cost";
      const record = ctx.store.load(ctx.sessionId)?.record;
      ctx.write(
        costReport(
          record,
          shownCosts(ctx.store.costs?.(ctx.sessionId)),
          shownCoverage(ctx.store, ctx.sessionId),
        ),
      );
      return "continue";
    }
    default:
      if (LATER.has(name)) {
        ctx.write(`/${name} is not available in this version\n`);
      } else {
        ctx.write(`Unknown command /${name} (try /help)\n`);
      }
      return "continue";
  }
}
