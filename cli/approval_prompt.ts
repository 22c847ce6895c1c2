/**
 * The interactive approval prompt (cli.md §4), on stderr:
 * `Approve <tool> <preview>? [y] once  [a] always  [n] no`. One line is
 * read; `[a]` is offered only when the answer can be cached. Ctrl-C
 * (the request's signal) or end of input rejects.
 *
 * @module
 */
import type { ApprovalDecision, ApprovalRequest } from "../tools/registry.ts";
import { stripControl } from "./control.ts";
import type { CliIo } from "./io.ts";
import type { LineReader } from "./stdin.ts";

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
 * @returns The approver.
 *
 * @example Answer "a"
 * ```ts
 * import { createApprover } from "./approval_prompt.ts";
 * import { createBufferedIo } from "./io.ts";
 * import { createLineReader } from "./stdin.ts";
 * import assert from "node:assert/strict";
 * const b = createBufferedIo({ stdin: "a\n" });
 * const approve = createApprover(b.io, createLineReader(b.io.stdin));
 * const d = await approve({ toolId: "write_file", action: "fs_write", preview: { path: "a.txt" }, cacheable: true, signal: new AbortController().signal });
 * assert.equal(d, "always");
 * assert.equal(b.stderrText(), "Approve write_file a.txt? [y] once  [a] always  [n] no ");
 * ```
 */
export function createApprover(
  io: CliIo,
  reader: LineReader,
): (request: ApprovalRequest) => Promise<ApprovalDecision> {
  return async (request) => {
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
