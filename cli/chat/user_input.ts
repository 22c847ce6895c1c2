/**
 * `!cmd` and `@path` in an interactive chat. A `!` line runs
 * through `AgentSession.runUserCommand` (the `[chat]` allowlist before
 * approval, then the mode), shows a bounded preview on stderr and queues
 * the framed output for the next message; a denial prints its hint. An
 * ordinary line gets each `@path` read through `read_file`'s jail and
 * appended as a `<file>` frame, after any queued `<command>` frames.
 * Only the interactive REPL uses this: in plain and `--json` runs a
 * leading `!` or `@` is literal text.
 *
 * @module
 */
import type { ModeController } from "../../tools/modes.ts";
import type { TurnPolicy, UserCommandOutcome } from "../../tools/registry.ts";
import type { UserFileResult } from "../../tools/builtin/user_file.ts";
import { stripControl } from "../io/control.ts";
import type { CliIo } from "../io/io.ts";
import {
  estimateTextTokens,
  fileMarkers,
  frameCommand,
  frameFile,
  newNonce,
  type RandomBytes,
  tokenizeCommand,
} from "./inject.ts";

/** Lines of `!` output shown before "… (N more lines)". */
const PREVIEW_LINES = 20;
/** Characters per preview line. */
const PREVIEW_WIDTH = 200;

/**
 * What {@linkcode createUserInput} needs.
 */
export interface UserInputOptions {
  /** Where previews, notices and hints go (stderr). */
  write(text: string): void;
  /** The live session (idle between lines). */
  session: {
    runUserCommand(cmd: string, args: string[]): Promise<UserCommandOutcome>;
    setTurnPolicy(policy: TurnPolicy | undefined): void;
  };
  /** The chat's modes (the policy a `!` command runs under). */
  modes: Pick<ModeController, "mode" | "policy">;
  /** `@path` reads (the registry's `readUserFile`); absent ⇒ unavailable. */
  readFile?(path: string, signal: AbortSignal): Promise<UserFileResult>;
  /** Random bytes for the nonces. */
  random: RandomBytes;
}

/**
 * Turns a submitted line into the message to send.
 */
export interface UserInput {
  /**
   * `undefined` when the line was a `!` command (nothing to send), else
   * the message with queued command output and `@` files appended.
   */
  prepare(line: string): Promise<string | undefined>;
}

function preview(stdout: string, stderr: string): string {
  const text = stripControl(
    stderr === ""
      ? stdout
      : `${stdout}${stdout.endsWith("\n") ? "" : "\n"}${stderr}`,
  ).replace(/\n$/, "");
  if (text === "") return "";
  const lines = text.split("\n");
  const shown = lines.slice(0, PREVIEW_LINES).map((l) =>
    l.length > PREVIEW_WIDTH ? `${l.slice(0, PREVIEW_WIDTH)}…` : l
  );
  const more = lines.length - shown.length;
  return `${shown.join("\n")}\n${more > 0 ? `… (${more} more lines)\n` : ""}`;
}

function denialHint(
  shown: string,
  out: Extract<UserCommandOutcome, { kind: "denied" }>,
  mode: string,
): string {
  if (out.allowlist) {
    return `! ${shown}: not allowed. Add ${
      JSON.stringify(shown)
    } to [chat].allowed_commands to enable it.\n`;
  }
  if (mode === "plan") {
    return `! ${shown}: plan mode runs no commands. Switch with /mode (ask asks first) to run it.\n`;
  }
  return `! ${shown}: you declined it; nothing ran.\n`;
}

/**
 * Builds the `!` / `@` handler of an interactive chat.
 *
 * @param options Output, session, modes, file reads and randomness.
 * @returns The handler.
 */
export function createUserInput(options: UserInputOptions): UserInput {
  const queued: string[] = [];
  const { write } = options;

  async function runBang(rest: string): Promise<void> {
    const argv = tokenizeCommand(rest);
    const [cmd, ...args] = argv;
    if (cmd === undefined) return;
    const line = argv.join(" ");
    const shown = stripControl(line);
    options.session.setTurnPolicy(options.modes.policy);
    let out: UserCommandOutcome;
    try {
      out = await options.session.runUserCommand(cmd, args);
    } catch {
      write(`! ${shown}: the session is busy or has ended\n`);
      return;
    }
    switch (out.kind) {
      case "ran":
        write(preview(out.stdout, out.stderr));
        write(`[exit ${out.exitCode} · queued for your next message]\n`);
        queued.push(frameCommand(newNonce(options.random), {
          cmd: line,
          exitCode: out.exitCode,
          stdout: out.stdout,
          stderr: out.stderr,
        }));
        return;
      case "denied":
        write(denialHint(shown, out, options.modes.mode));
        return;
      case "failed":
        write(`! ${shown}: ${stripControl(out.message)}\n`);
        return;
      case "cancelled":
        write(`! ${shown}: cancelled\n`);
        return;
      default: {
        const never: never = out;
        return never;
      }
    }
  }

  async function attach(path: string): Promise<string | undefined> {
    const shown = stripControl(path);
    if (options.readFile === undefined) {
      write(`@${shown}: file injection is unavailable here; sent as text\n`);
      return undefined;
    }
    const r = await options.readFile(path, new AbortController().signal);
    if (!r.ok) {
      write(`@${shown}: ${stripControl(r.message)}; sent as text\n`);
      return undefined;
    }
    const tokens = estimateTextTokens(r.content);
    write(
      `@${shown}: attached ${r.content.length} chars (≈${tokens} tokens)\n`,
    );
    return frameFile(newNonce(options.random), path, r.content);
  }

  return {
    async prepare(line: string): Promise<string | undefined> {
      if (line.startsWith("!")) {
        await runBang(line.slice(1));
        return undefined;
      }
      const files: string[] = [];
      for (const path of fileMarkers(line)) {
        const frame = await attach(path);
        if (frame !== undefined) files.push(frame);
      }
      const blocks = [...queued.splice(0), ...files];
      return blocks.length === 0 ? line : [line, ...blocks].join("\n\n");
    },
  };
}

function systemRandom(length: number): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(length));
}

/**
 * The `prepareLine` hook of an interactive chat loop: {@linkcode
 * createUserInput} over the io's stderr and random source (default
 * `crypto.getRandomValues`) and the registry's `readUserFile`.
 *
 * @param io The CLI io.
 * @param session The live session.
 * @param modes The chat's modes.
 * @param registry The session's tools (`@` is unavailable without them).
 * @returns `prepare` of the handler.
 */
export function userLineHandler(
  io: CliIo,
  session: UserInputOptions["session"],
  modes: UserInputOptions["modes"],
  registry?: {
    readUserFile(path: string, signal: AbortSignal): Promise<UserFileResult>;
  },
): (line: string) => Promise<string | undefined> {
  return createUserInput({
    write: (t) => io.stderr.write(t),
    session,
    modes,
    ...(registry === undefined
      ? {}
      : { readFile: (p, s) => registry.readUserFile(p, s) }),
    random: io.randomBytes ?? systemRandom,
  }).prepare;
}
