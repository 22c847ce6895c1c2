/**
 * The interactive approval prompt, on stderr:
 * `Approve <tool> <preview>? [y] once  [a] always  [n] no`. One line is
 * read; `[a]` is offered only when the answer can be cached (never for a
 * user's `!` command). Ctrl-C (the request's signal) or end of input
 * rejects. Also the per-call `git_commit` gate:
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
import type { CliIo } from "../io/io.ts";
import type { LineReader } from "../io/stdin.ts";

function previewText(request: ApprovalRequest): string {
  const p = request.preview;
  const text = p.path ?? p.command ?? p.host ?? "";
  return text === "" ? "" : ` ${stripControl(text)}`;
}

/**
 * Creates the approver a mode policy calls in `accept-edits` (and for
 * protected writes in `auto`).
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
    io.stderr.write(
      `Approve ${request.toolId}${
        previewText(request)
      }? [y] once${always}  [n] no `,
    );
    if (request.signal.aborted) return "reject";
    let onAbort = (): void => {};
    const aborted = new Promise<undefined>((resolve) => {
      onAbort = () => resolve(undefined);
      request.signal.addEventListener("abort", onAbort, { once: true });
    });
    try {
      const line = await Promise.race([reader.next(), aborted]);
      const answer = line?.trim().toLowerCase();
      if (answer === "y") return "once";
      if (answer === "a" && request.cacheable) return "always";
      return "reject";
    } finally {
      request.signal.removeEventListener("abort", onAbort);
    }
  };
}

function gateText(details: Readonly<Record<string, unknown>>): string {
  const message = typeof details["message"] === "string"
    ? details["message"]
    : "";
  const files = Array.isArray(details["files"])
    ? details["files"].filter((f): f is string => typeof f === "string")
    : [];
  const clip = (t: string, n: number): string => {
    const clean = stripControl(t).replace(/\s+/g, " ").trim();
    return clean.length > n ? `${clean.slice(0, n)}…` : clean;
  };
  const list = files.length === 0
    ? "the staged changes"
    : files.slice(0, 10).map((f) => clip(f, 120)).join(", ") +
      (files.length > 10 ? ` and ${files.length - 10} more` : "");
  return `${JSON.stringify(clip(message, 300))} (${list})`;
}

/**
 * Creates the per-call gate of `git_commit` for an
 * interactive TTY: it shows the message and files on stderr and asks
 * `Commit <message> (<files>)? [y] yes  [n] no`; only `y` commits. Never
 * cached; Ctrl-C (the request's signal) or end of input declines.
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
    if (request.signal.aborted) return false;
    let onAbort = (): void => {};
    const aborted = new Promise<undefined>((resolve) => {
      onAbort = () => resolve(undefined);
      request.signal.addEventListener("abort", onAbort, { once: true });
    });
    try {
      const line = await Promise.race([reader.next(), aborted]);
      return line?.trim().toLowerCase() === "y";
    } finally {
      request.signal.removeEventListener("abort", onAbort);
    }
  };
}
