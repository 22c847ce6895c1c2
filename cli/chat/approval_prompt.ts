/**
 * The interactive approval prompt, on stderr, always at the start of a
 * line (the printer ends the model's open line when the approval is
 * announced): `Approve <tool> <target>? [y] once  [a] always  [n] no`.
 * The target is what runs, whole: a command line longer than one line is
 * printed on its own indented lines, wrapped and never cut; a web request
 * shows its whole URL; a write shows its resolved target, flagged when it
 * is a protected path (and the path as requested when that differs), and
 * above the question what it writes: the first lines of a new file or an
 * append, or a line diff and "overwrites N bytes" for a replacement.
 * `[a]` is offered only when the answer can be cached (never for a user's
 * `!` command). An unrecognised answer (`maybe`) is named and the question
 * asked again, a few times, then it is declined saying so; Ctrl-C (the
 * request's signal) or end of input declines. Also the per-call `git_commit` gate:
 * `Commit "<message>" (<files>)? [y] yes  [n] no`.
 *
 * @module
 */
import type { GateRequest } from "../../tools/approval.ts";
import type {
  ApprovalDecision,
  ApprovalRequest,
} from "../../tools/registry.ts";
import { stripControl } from "../io/control.ts";

/** What a person approves shows each bidi control (the name used is the name shown). */
const MARK = { markBidi: true } as const;
import { writePreview } from "./approval_diff.ts";
import type { CliIo } from "../io/io.ts";
import type { LineReader } from "../io/stdin.ts";

/** Longest preview kept on the question's own line. */
const INLINE_MAX = 60;
/** Width of a wrapped preview line, indent excluded. */
const WRAP_WIDTH = 76;
/** Answers read before an unrecognised one counts as `no`. */
const MAX_ASKS = 5;

/**
 * Splits text into lines of at most `width` characters, at spaces where
 * it can; every character is kept, in order.
 */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let rest = text;
  while (rest.length > width) {
    const space = rest.lastIndexOf(" ", width);
    const cut = space > 0 ? space + 1 : width;
    lines.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  lines.push(rest);
  return lines;
}

function previewText(request: ApprovalRequest): string {
  const p = request.preview;
  const text = stripControl(
    p.path ?? p.command ?? request.url ?? p.host ?? "",
    MARK,
  );
  const notes: string[] = [];
  if (request.protectedPath) notes.push("protected path");
  if (request.requestedPath !== undefined) {
    notes.push(`requested as ${stripControl(request.requestedPath, MARK)}`);
  }
  const note = notes.length === 0 ? "" : ` (${notes.join("; ")})`;
  if (text === "") return note;
  if (text.length <= INLINE_MAX && !text.includes("\n")) {
    return ` ${text}${note}`;
  }
  const lines = text.split("\n").flatMap((l) => wrap(l, WRAP_WIDTH));
  return `${note}:\n${lines.map((l) => `  ${l}`).join("\n")}\n`;
}

/** An unrecognised answer as it is named back (one line, bounded). */
function shownAnswer(answer: string): string {
  const one = stripControl(answer).replace(/\s+/g, " ").trim();
  return JSON.stringify(one.length <= 40 ? one : `${one.slice(0, 39)}…`);
}

/**
 * Reads a yes or no (`y`/`yes`, `n`/`no`; `undefined` at end of input,
 * on abort, or after too many other answers).
 */
export function readYesNo(
  io: CliIo,
  reader: LineReader,
  signal: AbortSignal = new AbortController().signal,
): Promise<boolean | undefined> {
  return readAnswer({ signal }, {
    io,
    reader,
    again: "Please answer y (yes) or n (no): ",
    recognise(a): boolean | undefined {
      if (a === "y" || a === "yes") return true;
      return a === "n" || a === "no" ? false : undefined;
    },
  });
}

/**
 * Reads answers until one is recognised (`undefined`: end of input,
 * Ctrl-C, or too many unrecognised answers, which it says).
 */
export async function readAnswer<T>(
  request: { signal: AbortSignal },
  options: {
    io: CliIo;
    reader: LineReader;
    recognise(answer: string): T | undefined;
    again: string;
  },
): Promise<T | undefined> {
  if (request.signal.aborted) return undefined;
  let onAbort = (): void => {};
  const aborted = new Promise<undefined>((resolve) => {
    onAbort = () => resolve(undefined);
    request.signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    let last = "";
    for (let ask = 0; ask < MAX_ASKS; ask++) {
      if (ask > 0) {
        options.io.stderr.write(`${last} is not an answer. ${options.again}`);
      }
      const line = await Promise.race([options.reader.next(), aborted]);
      if (line === undefined) return undefined;
      const known = options.recognise(line.trim().toLowerCase());
      if (known !== undefined) return known;
      last = shownAnswer(line);
    }
    options.io.stderr.write(
      `${last} is not an answer either; taken as no after ${MAX_ASKS} tries\n`,
    );
    return undefined;
  } finally {
    request.signal.removeEventListener("abort", onAbort);
  }
}

/**
 * Creates the approver a mode policy calls when a person is asked (see
 * `tools/modes.ts`).
 *
 * @param io Where the question goes (stderr).
 * @param reader The chat's stdin line reader (shared with the loop).
 * @param settle Awaited before the question (the session's events first).
 * @returns The approver.
 */
export function createApprover(
  io: CliIo,
  reader: LineReader,
  settle?: () => Promise<void>,
): (request: ApprovalRequest) => Promise<ApprovalDecision> {
  return async (request) => {
    await settle?.();
    const always = request.cacheable ? "  [a] always" : "";
    const choices = `[y] once${always}  [n] no `;
    const shown = previewText(request);
    if (request.write !== undefined) {
      const [head = "", ...body] = writePreview(request.write);
      io.stderr.write(
        `${request.toolId} ${head}\n${body.map((l) => `  ${l}\n`).join("")}`,
      );
    }
    io.stderr.write(
      shown.endsWith("\n")
        ? `Approve ${request.toolId}${shown}${choices}`
        : `Approve ${request.toolId}${shown}? ${choices}`,
    );
    const answer = await readAnswer(request, {
      io,
      reader,
      again: `Please answer y (once)${
        request.cacheable ? ", a (always)" : ""
      } or n (no): `,
      recognise(a): ApprovalDecision | undefined {
        if (a === "y" || a === "yes") return "once";
        if ((a === "a" || a === "always") && request.cacheable) {
          return "always";
        }
        return a === "n" || a === "no" ? "reject" : undefined;
      },
    });
    return answer ?? "reject";
  };
}

function gateText(details: Readonly<Record<string, unknown>>): string {
  const message = typeof details["message"] === "string"
    ? details["message"]
    : "";
  const files = Array.isArray(details["files"])
    ? details["files"].filter((f): f is string => typeof f === "string")
    : [];
  // Shown whole, never cut: what is approved is what is committed.
  const clean = (t: string): string =>
    stripControl(t, MARK).replace(/\s+/g, " ").trim();
  const list = files.length === 0
    ? "the staged changes"
    : files.map(clean).join(", ");
  return `${JSON.stringify(clean(message))} (${list})`;
}

/**
 * Creates the per-call gate of `git_commit` for an
 * interactive TTY: it shows the message and files on stderr and asks
 * `Commit <message> (<files>)? [y] yes  [n] no`; only `y` commits, an
 * unrecognised answer asks again. Never cached; Ctrl-C (the request's
 * signal) or end of input declines.
 *
 * @param io Where the question goes (stderr).
 * @param reader The chat's stdin line reader (shared with the loop).
 * @param settle Awaited before the question (the session's events first).
 * @returns The gate hook.
 */
export function createGatePrompt(
  io: CliIo,
  reader: LineReader,
  settle?: () => Promise<void>,
): (request: GateRequest) => Promise<boolean> {
  return async (request) => {
    await settle?.();
    io.stderr.write(
      `${
        request.toolId === "git_commit" ? "Commit" : `Run ${request.toolId}`
      } ${gateText(request.details)}? [y] yes  [n] no `,
    );
    return await readYesNo(io, reader, request.signal) === true;
  };
}
