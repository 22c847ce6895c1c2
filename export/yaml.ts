/**
 * Deterministic YAML for workflow documents (export.md §4).
 *
 * @module
 */
import {
  type CreateNodeOptions,
  Document,
  type DocumentOptions,
  isScalar,
  type Pair,
  Scalar,
  type SchemaOptions,
  type ToStringOptions,
  visit,
} from "yaml";
import type { WorkflowDocument } from "./document.ts";

function keyText(pair: Pair): string {
  const key = pair.key;
  return isScalar(key) ? String(key.value) : String(key);
}

/** Code-unit order of mapping keys (JS string comparison). */
function byKey(a: Pair, b: Pair): number {
  const x = keyText(a);
  const y = keyText(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Characters YAML does not allow raw (DEL, C1 controls, U+FFFE/U+FFFF), or
 * that a YAML 1.1 reader takes for line breaks (NEL, U+2028, U+2029), or a
 * stray byte-order mark. The library escapes C0 controls and unpaired
 * surrogates itself but writes these raw, even inside double quotes.
 */
const RAW_UNSAFE = /[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]/;
const RAW_UNSAFE_ALL = new RegExp(RAW_UNSAFE.source, "g");

const NAMED_ESCAPES: Readonly<Record<string, string>> = {
  "\x85": "\\N",
  "\u2028": "\\L",
  "\u2029": "\\P",
};

function escapeChar(c: string): string {
  const named = NAMED_ESCAPES[c];
  if (named !== undefined) return named;
  const code = c.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : `\\u${code.toString(16).padStart(4, "0")}`;
}

const OPTIONS:
  & DocumentOptions
  & SchemaOptions
  & CreateNodeOptions
  & ToStringOptions = {
    version: "1.2",
    schema: "core",
    compat: "yaml-1.1",
    sortMapEntries: byKey,
    aliasDuplicateObjects: false,
    lineWidth: 0,
    indent: 2,
    directives: false,
  };

/**
 * Serializes a workflow document as deterministic YAML (export.md §4).
 *
 * Mapping keys are sorted by UTF-16 code-unit order at every depth (even
 * integer-like keys, which JS objects would reorder); arrays keep their
 * order. Strings that a YAML 1.2 core-schema reader *or* a YAML 1.1 reader
 * would load as another type are quoted (`"1.0"`, `"true"`, `"null"`,
 * `"0o17"`, `"yes"`, ISO timestamps, …), so every string round-trips as a
 * string. Control characters, unpaired surrogates, DEL, C1 controls,
 * U+2028, U+2029, U+FEFF, U+FFFE and U+FFFF are written as double-quoted
 * escapes, so the text is valid YAML for strict and YAML 1.1 readers too. No anchors, aliases, comments, tags, directives or
 * line folding; the text ends with one newline. The emitter is faithful:
 * it adds, removes and scrubs nothing (keys whose value is `undefined` are
 * absent, as in JSON).
 *
 * `stringifyWorkflow(parse(stringifyWorkflow(doc)))` is byte-identical to
 * `stringifyWorkflow(doc)` when parsing with the YAML 1.2 core schema (as
 * `parseWorkflow` does).
 *
 * @param doc The document, e.g. from `sessionToWorkflow` or `parseWorkflow`.
 * @returns UTF-8-ready YAML text ending in `\n`.
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
  const yamlDoc = new Document(doc, OPTIONS);
  let escape = false;
  visit(yamlDoc, {
    Scalar(_key, node) {
      if (typeof node.value === "string" && RAW_UNSAFE.test(node.value)) {
        node.type = Scalar.QUOTE_DOUBLE;
        escape = true;
      }
    },
  });
  const text = yamlDoc.toString(OPTIONS);
  // Safe on the whole text: these characters occur only inside scalars,
  // and every scalar holding one is double-quoted above.
  return escape ? text.replace(RAW_UNSAFE_ALL, escapeChar) : text;
}
