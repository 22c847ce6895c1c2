/**
 * Line numbers of the keys and values of a YAML document, read off
 * js-yaml's event stream, so agent-file errors can name `file:line`
 * without loading a full YAML AST library.
 *
 * @module
 */
import { EVENT_ID, getScalarValue, parseEvents } from "js-yaml";

type Frame =
  | { kind: "map"; path: string; key: string | undefined; expectKey: boolean }
  | { kind: "seq"; path: string; index: number }
  | { kind: "complex-key" };

function join(path: string, key: string | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  return path === "" ? key : `${path}.${key}`;
}

/**
 * What {@linkcode yamlPositions} found.
 *
 * @example Shape
 * ```ts
 * import type { YamlPositions } from "./yaml_positions.ts";
 * type L = YamlPositions["lines"];
 * ```
 */
export interface YamlPositions {
  /** 1-based line of each key path (`a.b[2].c`), at its key or item. */
  lines: Map<string, number>;
  /** How many aliases (`*name`) the document uses. */
  aliases: number;
}

/**
 * Maps each key path of the first document to its 1-based line.
 *
 * @param text YAML text that js-yaml can parse.
 * @returns The lines by path, and the alias count.
 * @throws {Error} What js-yaml throws for text it cannot parse.
 *
 * @example Find a nested key and a list item
 * ```ts
 * import { yamlPositions } from "./yaml_positions.ts";
 * import assert from "node:assert/strict";
 * const p = yamlPositions("id: a\nmemory: { type: window, windo: 3 }\ntools:\n  - read_file\n  - nope\n");
 * assert.equal(p.lines.get("memory.windo"), 2);
 * assert.equal(p.lines.get("tools[1]"), 5);
 * ```
 */
export function yamlPositions(text: string): YamlPositions {
  const lineStarts: number[] = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) {
    lineStarts.push(i + 1);
  }
  function lineOf(offset: number): number {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((lineStarts[mid] ?? 0) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }
  const lines = new Map<string, number>();
  let aliases = 0;
  const stack: Frame[] = [];
  let docs = 0;

  function advance(): void {
    const top = stack[stack.length - 1];
    if (top === undefined) return;
    if (top.kind === "map") {
      top.expectKey = true;
      top.key = undefined;
    } else if (top.kind === "seq") top.index++;
  }
  /** Where the next value node goes; `undefined` for a key or the root. */
  function valuePath(): string | undefined {
    const top = stack[stack.length - 1];
    if (top === undefined) return "";
    if (top.kind === "complex-key") return undefined;
    if (top.kind === "seq") return join(top.path, top.index);
    return top.expectKey ? undefined : join(top.path, top.key ?? "?");
  }

  for (const ev of parseEvents(text, {})) {
    if (ev.type === EVENT_ID.DOCUMENT) {
      if (++docs > 1) break;
      continue;
    }
    if (ev.type === EVENT_ID.POP) {
      // A complex key ends: its mapping now expects the value.
      if (stack.pop()?.kind !== "complex-key") advance();
      continue;
    }
    const top = stack[stack.length - 1];
    const offset = ev.type === EVENT_ID.SCALAR
      ? ev.valueStart
      : "start" in ev
      ? ev.start
      : -1;
    if (top?.kind === "map" && top.expectKey) {
      // A key: scalars name the path; a complex key is skipped as "?".
      top.key = ev.type === EVENT_ID.SCALAR ? getScalarValue(text, ev) : "?";
      top.expectKey = false;
      if (offset >= 0) lines.set(join(top.path, top.key), lineOf(offset));
      if (ev.type === EVENT_ID.MAPPING || ev.type === EVENT_ID.SEQUENCE) {
        stack.push({ kind: "complex-key" });
      }
      continue;
    }
    const path = valuePath();
    if (path === undefined) {
      // Inside a complex key: track nesting only.
      if (ev.type === EVENT_ID.MAPPING || ev.type === EVENT_ID.SEQUENCE) {
        stack.push({ kind: "complex-key" });
      }
      continue;
    }
    if (!lines.has(path) && offset >= 0) lines.set(path, lineOf(offset));
    if (ev.type === EVENT_ID.ALIAS) aliases++;
    if (ev.type === EVENT_ID.MAPPING) {
      stack.push({ kind: "map", path, key: undefined, expectKey: true });
    } else if (ev.type === EVENT_ID.SEQUENCE) {
      stack.push({ kind: "seq", path, index: 0 });
    } else advance();
  }
  return { lines, aliases };
}
