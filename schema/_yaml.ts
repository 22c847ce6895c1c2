/**
 * The one YAML reader of agent and workflow files: js-yaml's event stream,
 * read once for the line of every key path and then built into a value
 * with the YAML 1.2 core schema (no timestamps, no custom or non-core
 * tags; duplicate keys are errors). Exactly one document; at most
 * {@linkcode MAX_ALIASES} aliases; an alias inside the node it names (a
 * cycle) is refused.
 *
 * @module
 */
import {
  constructFromEvents,
  CORE_SCHEMA,
  type Event,
  EVENT_ID,
  getScalarValue,
  parseEvents,
} from "js-yaml";
import { err, ok, type Result } from "./result.ts";
import type { ValidationIssue } from "./issues.ts";

/** Aliases beyond this are refused (alias-expansion bombs). */
export const MAX_ALIASES = 100;

/** A decoded document and the 1-based line of each key path in it. */
export interface YamlRead {
  value: unknown;
  /** Line of each key path (`a.b[2].c`), at its key or list item. */
  lines: Map<string, number>;
}

type Frame =
  | {
    kind: "map";
    path: string;
    key: string | undefined;
    expectKey: boolean;
    anchor: string | undefined;
  }
  | { kind: "seq"; path: string; index: number; anchor: string | undefined }
  | { kind: "complex-key"; anchor: string | undefined };

function join(path: string, key: string | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  return path === "" ? key : `${path}.${key}`;
}

function lineStarts(text: string): (offset: number) => number {
  const starts: number[] = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) {
    starts.push(i + 1);
  }
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] ?? 0) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

const SINGLE = "must be a single mapping document";

/** Walks the events of the one document: lines, alias count, cycles. */
function walk(
  text: string,
  events: readonly Event[],
  lineOf: (offset: number) => number,
): Result<Map<string, number>, ValidationIssue> {
  const lines = new Map<string, number>();
  const stack: Frame[] = [];
  let aliases = 0;
  const anchorOf = (ev: Event): string | undefined =>
    "anchorStart" in ev && ev.anchorStart >= 0
      ? text.slice(ev.anchorStart, ev.anchorEnd)
      : undefined;
  const advance = (): void => {
    const top = stack[stack.length - 1];
    if (top?.kind === "map") {
      top.expectKey = true;
      top.key = undefined;
    } else if (top?.kind === "seq") top.index++;
  };
  const valuePath = (): string | undefined => {
    const top = stack[stack.length - 1];
    if (top === undefined) return "";
    if (top.kind === "complex-key") return undefined;
    if (top.kind === "seq") return join(top.path, top.index);
    return top.expectKey ? undefined : join(top.path, top.key ?? "?");
  };
  for (const ev of events) {
    if (ev.type === EVENT_ID.DOCUMENT) continue;
    if (ev.type === EVENT_ID.POP) {
      if (stack.pop()?.kind !== "complex-key") advance();
      continue;
    }
    const offset = ev.type === EVENT_ID.SCALAR
      ? ev.valueStart
      : "start" in ev
      ? ev.start
      : ev.anchorStart;
    if (ev.type === EVENT_ID.ALIAS) {
      if (++aliases > MAX_ALIASES) {
        return err({
          path: "",
          line: lineOf(offset),
          message: `too many YAML aliases (at most ${MAX_ALIASES})`,
        });
      }
      const name = text.slice(ev.anchorStart, ev.anchorEnd);
      if (stack.some((f) => f.anchor === name)) {
        return err({
          path: "",
          line: lineOf(offset),
          message: `alias *${name} refers to a node that contains it`,
        });
      }
    }
    const anchor = anchorOf(ev);
    const opens = ev.type === EVENT_ID.MAPPING || ev.type === EVENT_ID.SEQUENCE;
    const top = stack[stack.length - 1];
    if (top?.kind === "map" && top.expectKey) {
      // A key: a scalar names the path; a complex key is skipped as "?".
      top.key = ev.type === EVENT_ID.SCALAR ? getScalarValue(text, ev) : "?";
      top.expectKey = false;
      if (offset >= 0) lines.set(join(top.path, top.key), lineOf(offset));
      if (opens) stack.push({ kind: "complex-key", anchor });
      continue;
    }
    const path = valuePath();
    if (path === undefined) {
      if (opens) stack.push({ kind: "complex-key", anchor });
      continue;
    }
    if (!lines.has(path) && offset >= 0) lines.set(path, lineOf(offset));
    if (ev.type === EVENT_ID.MAPPING) {
      stack.push({
        kind: "map",
        path,
        key: undefined,
        expectKey: true,
        anchor,
      });
    } else if (ev.type === EVENT_ID.SEQUENCE) {
      stack.push({ kind: "seq", path, index: 0, anchor });
    } else advance();
  }
  return ok(lines);
}

/**
 * Reads one YAML document with the core schema.
 *
 * @param text The YAML text.
 * @returns The value and the line of each key path, or the problem (its
 * line when known; `path` is `""`).
 */
export function readYaml(text: string): Result<YamlRead, ValidationIssue> {
  const lineOf = lineStarts(text);
  try {
    const events = parseEvents(text, {});
    const docs = events.filter((e) => e.type === EVENT_ID.DOCUMENT).length;
    if (docs !== 1) return err({ path: "", message: SINGLE });
    const lines = walk(text, events, lineOf);
    if (!lines.ok) return lines;
    const [value] = constructFromEvents(events, {
      source: text,
      schema: CORE_SCHEMA,
      maxAliases: MAX_ALIASES,
    });
    return ok({ value, lines: lines.value });
  } catch (e) {
    const { mark, reason } = e as {
      mark?: { line?: number };
      reason?: string;
    };
    if (reason === undefined) throw e;
    const issue: ValidationIssue = { path: "", message: reason };
    if (typeof mark?.line === "number") issue.line = mark.line + 1;
    return err(issue);
  }
}

function splitPath(path: string): Array<string | number> {
  const out: Array<string | number> = [];
  for (const m of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) {
    if (m[2] !== undefined) out.push(Number(m[2]));
    else if (m[1] !== undefined) out.push(m[1]);
  }
  return out;
}

function formatParts(parts: ReadonlyArray<string | number>): string {
  let out = "";
  for (const p of parts) {
    out += typeof p === "number" ? `[${p}]` : out === "" ? p : `.${p}`;
  }
  return out;
}

/**
 * The line of a key path, or of its nearest ancestor below the root.
 *
 * @param lines What {@linkcode readYaml} found.
 * @param path A key path such as `fallback_chain[0].model`.
 * @returns The 1-based line, or `undefined`.
 */
export function lineOfPath(
  lines: ReadonlyMap<string, number>,
  path: string,
): number | undefined {
  const parts = splitPath(path);
  for (let n = parts.length; n > 0; n--) {
    const line = lines.get(formatParts(parts.slice(0, n)));
    if (line !== undefined) return line;
  }
  return undefined;
}

/**
 * Gives each issue the line of its key path.
 *
 * @param issues Issues with key paths.
 * @param lines What {@linkcode readYaml} found.
 * @returns The issues, each with `line` when one is known.
 */
export function withLines(
  issues: readonly ValidationIssue[],
  lines: ReadonlyMap<string, number>,
): ValidationIssue[] {
  return issues.map((issue) => {
    if (issue.line !== undefined) return issue;
    const line = lineOfPath(lines, issue.path);
    return line === undefined ? issue : { ...issue, line };
  });
}

/**
 * Renders issues as `file:line: path: message` lines (no line when it is
 * unknown, no path for the document itself).
 *
 * @param file The file name.
 * @param issues The issues.
 * @returns One line per issue, joined by `\n`.
 */
export function renderFileIssues(
  file: string,
  issues: readonly ValidationIssue[],
): string {
  return issues.map((i) =>
    `${file}${i.line === undefined ? "" : `:${i.line}`}: ${
      i.path === "" ? "" : `${i.path}: `
    }${i.message}`
  ).join("\n");
}
