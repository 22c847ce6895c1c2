/**
 * Deterministic YAML for workflow documents: a small block-
 * style emitter for JSON-like data, without the `yaml` library (keeping
 * its start-up cost off the export path).
 *
 * @module
 */
import type { WorkflowDocument } from "./document.ts";
import { keyScalar, numberScalar, valueScalar } from "./_yaml_scalar.ts";

const STEP = "  ";

/** A plain object (not an array, a `Date`, a `Map` or another class). */
function isMap(v: unknown): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function isEmpty(v: unknown): boolean {
  if (Array.isArray(v)) return v.length === 0;
  if (!isMap(v)) return false;
  for (const k in v) {
    if (Object.hasOwn(v, k) && v[k] !== undefined) return false;
  }
  return true;
}

/** Own keys with a defined value, in code-unit order. */
function definedKeys(map: Record<string, unknown>): string[] {
  return Object.keys(map).filter((k) => map[k] !== undefined).sort();
}

/**
 * A leaf or an empty collection, for a value written on the same line.
 * `blockIndent` indents the lines of a literal block.
 */
function inline(v: unknown, blockIndent: string): string {
  switch (typeof v) {
    case "string":
      return valueScalar(v, blockIndent);
    case "number":
      return numberScalar(v);
    case "boolean":
      return v ? "true" : "false";
    case "undefined":
      return "null";
    case "object":
      if (v === null) return "null";
      if (Array.isArray(v)) return "[]";
      if (isMap(v)) return "{}";
      throw new TypeError("Cannot serialize a non-plain object as YAML");
    default:
      throw new TypeError(`Cannot serialize a ${typeof v} as YAML`);
  }
}

/** Output text and rendered-key cache of one serialization. */
interface Sink {
  text: string;
  keys: Map<string, string>;
}

function renderKey(key: string, sink: Sink): string {
  let k = sink.keys.get(key);
  if (k === undefined) {
    k = keyScalar(key);
    sink.keys.set(key, k);
  }
  return k;
}

/** Writes `map`'s pairs at `indent`; the first one follows `first`. */
function writeMap(
  map: Record<string, unknown>,
  indent: string,
  first: string,
  sink: Sink,
): void {
  let lead = first;
  for (const key of definedKeys(map)) {
    const value = map[key];
    let k = renderKey(key, sink);
    if (k.length > 1024) k = `? ${k}\n${indent}:`;
    else k += ":";
    if (isEmpty(value) || !(isMap(value) || Array.isArray(value))) {
      sink.text += `${lead}${k} ${inline(value, indent + STEP)}`;
    } else {
      sink.text += lead + k;
      writeNode(value, indent + STEP, `\n${indent}${STEP}`, sink);
    }
    lead = `\n${indent}`;
  }
}

/** Writes `list`'s items at `indent`; the first one follows `first`. */
function writeSeq(
  list: unknown[],
  indent: string,
  first: string,
  sink: Sink,
): void {
  let lead = first;
  for (const item of list) {
    if (isEmpty(item) || !(isMap(item) || Array.isArray(item))) {
      sink.text += `${lead}- ${inline(item, indent + STEP)}`;
    } else {
      sink.text += `${lead}- `;
      writeNode(item, indent + STEP, "", sink);
    }
    lead = `\n${indent}`;
  }
}

function writeNode(
  v: Record<string, unknown> | unknown[],
  indent: string,
  first: string,
  sink: Sink,
): void {
  if (Array.isArray(v)) writeSeq(v, indent, first, sink);
  else writeMap(v, indent, first, sink);
}

/**
 * Serializes a workflow document as deterministic YAML.
 *
 * Block style throughout, two-space indentation, sequences indented under
 * their key; mapping keys sorted by UTF-16 code-unit order at every depth
 * (even integer-like keys, which JS objects would reorder); arrays in
 * order. A string that a YAML 1.2 core-schema reader *or* a YAML 1.1
 * reader would load as another type is quoted (`"1.0"`, `"true"`,
 * `"null"`, `"0o17"`, `"yes"`, ISO timestamps, …), so every string
 * round-trips as a string. Control characters, DEL, C1 controls, U+2028,
 * U+2029, U+FEFF, U+FFFE, U+FFFF and unpaired surrogates are written as
 * double-quoted escapes, so strict and YAML 1.1 readers accept the text
 * too; other multi-line text is a literal block (`|`). No anchors,
 * aliases, comments, tags, directives or line folding; UTF-8-safe; one
 * trailing newline. The emitter is faithful: it adds, removes and scrubs
 * nothing (keys whose value is `undefined` are absent, as in JSON).
 *
 * `stringifyWorkflow(parse(stringifyWorkflow(doc)))` is byte-identical to
 * `stringifyWorkflow(doc)` when parsing with the YAML 1.2 core schema (as
 * `parseWorkflow` does).
 *
 * @param doc The document, e.g. from `sessionToWorkflow` or `parseWorkflow`:
 * JSON-like data (strings, finite numbers, booleans, `null`, arrays, plain
 * objects), without cycles.
 * @returns UTF-8-ready YAML text ending in `\n`.
 * @throws {TypeError} When a value is not JSON-like (a function, a
 * symbol, a bigint, a class instance such as a `Date`).
 *
 * @example Sorted keys, quoted look-alikes
 * ```ts
 * import { stringifyWorkflow } from "@relavium/session/export";
 * import assert from "node:assert/strict";
 * const text = stringifyWorkflow({
 *   schema_version: "1.0",
 *   workflow: {
 *     id: "demo",
 *     nodes: [{ type: "input", id: "input" }, { type: "output", id: "output" }],
 *     edges: [{ to: "output", from: "input" }],
 *   },
 * });
 * assert.equal(
 *   text,
 *   [
 *     'schema_version: "1.0"',
 *     "workflow:",
 *     "  edges:",
 *     "    - from: input",
 *     "      to: output",
 *     "  id: demo",
 *     "  nodes:",
 *     "    - id: input",
 *     "      type: input",
 *     "    - id: output",
 *     "      type: output",
 *     "",
 *   ].join("\n"),
 * );
 * ```
 */
export function stringifyWorkflow(doc: WorkflowDocument): string {
  const sink: Sink = { text: "", keys: new Map() };
  const root: unknown = doc;
  if (isMap(root) && !isEmpty(root)) writeMap(root, "", "", sink);
  else sink.text += inline(root, STEP);
  return `${sink.text}\n`;
}
