/**
 * What a write approval shows of the change: for a new file (or an
 * append) its first lines, for a replaced file a line diff against the
 * text there now with a little context, and in every case how many bytes
 * it writes and, for a replacement, how many it overwrites. Bounded: at
 * most {@linkcode PREVIEW_LINES} lines of change are shown, then how many
 * more there are. Strings shaped like provider keys are redacted, and
 * control characters stripped.
 *
 * @module
 */
import { createSecretScreen } from "../../host/secrets.ts";
import type { ApprovalRequest } from "../../tools/registry.ts";
import { stripControl } from "../io/control.ts";

/** Lines of content or diff shown before `… N more lines`. */
export const PREVIEW_LINES = 20;
/** Unchanged lines kept around each change. */
const CONTEXT = 2;
/** Largest line-count product the diff table is built for. */
const DIFF_CELLS = 250_000;

type Op = { kind: " " | "-" | "+"; line: string };

function linesOf(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/** A longest-common-subsequence line diff; `undefined` when too large. */
function lineDiff(a: string[], b: string[]): Op[] | undefined {
  const n = a.length;
  const m = b.length;
  if ((n + 1) * (m + 1) > DIFF_CELLS) return undefined;
  const w = m + 1;
  const table = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i * w + j] = a[i] === b[j]
        ? (table[(i + 1) * w + j + 1] ?? 0) + 1
        : Math.max(table[(i + 1) * w + j] ?? 0, table[i * w + j + 1] ?? 0);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      ops.push({ kind: " ", line: a[i] ?? "" });
      i++;
      j++;
    } else if (
      i < n &&
      (j >= m || (table[(i + 1) * w + j] ?? 0) >= (table[i * w + j + 1] ?? 0))
    ) {
      // Removed lines come before the lines replacing them.
      ops.push({ kind: "-", line: a[i] ?? "" });
      i++;
    } else {
      ops.push({ kind: "+", line: b[j] ?? "" });
      j++;
    }
  }
  return ops;
}

/** The changes with {@linkcode CONTEXT} lines around them, `…` between. */
function hunks(ops: Op[]): string[] {
  const keep = ops.map(() => false);
  ops.forEach((op, k) => {
    if (op.kind === " ") return;
    for (let c = k - CONTEXT; c <= k + CONTEXT; c++) {
      if (c >= 0 && c < ops.length) keep[c] = true;
    }
  });
  const out: string[] = [];
  let gap = false;
  ops.forEach((op, k) => {
    if (!keep[k]) {
      gap = true;
      return;
    }
    if (gap && out.length > 0) out.push("…");
    gap = false;
    out.push(`${op.kind} ${op.line}`);
  });
  return out;
}

function bounded(lines: string[]): string[] {
  if (lines.length <= PREVIEW_LINES) return lines;
  const rest = lines.length - PREVIEW_LINES;
  return [
    ...lines.slice(0, PREVIEW_LINES),
    `… ${rest} more line${rest === 1 ? "" : "s"}`,
  ];
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/**
 * The lines a write approval shows under its question (unindented).
 *
 * @param write The request's write details.
 * @returns The summary line, then the preview or diff lines.
 */
export function writePreview(
  write: NonNullable<ApprovalRequest["write"]>,
): string[] {
  const screen = createSecretScreen([]);
  const clean = (t: string): string =>
    stripControl(screen.redact(t), { markBidi: true });
  const bytes = new TextEncoder().encode(write.content).length;
  const next = linesOf(clean(write.content));
  const existing = write.existing;
  if (write.append) {
    return [
      `appends ${plural(bytes, "byte")}${
        existing === undefined
          ? " (a new file)"
          : ` to ${plural(existing.bytes, "byte")}`
      }:`,
      ...bounded(next.map((l) => `+ ${l}`)),
    ];
  }
  if (existing === undefined) {
    return [
      `new file, ${plural(next.length, "line")} (${plural(bytes, "byte")}):`,
      ...bounded(next.map((l) => `+ ${l}`)),
    ];
  }
  const head = `overwrites ${plural(existing.bytes, "byte")} with ${
    plural(bytes, "byte")
  }`;
  if (existing.text === undefined) {
    return [
      `${head} (its current content is not shown); new content:`,
      ...bounded(next.map((l) => `+ ${l}`)),
    ];
  }
  const ops = lineDiff(linesOf(clean(existing.text)), next);
  if (ops === undefined) {
    return [`${head}; new content:`, ...bounded(next.map((l) => `+ ${l}`))];
  }
  const changed = ops.filter((o) => o.kind !== " ").length;
  if (changed === 0) return [`${head} (the same text)`];
  return [`${head}; changes:`, ...bounded(hunks(ops))];
}
