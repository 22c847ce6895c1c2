/**
 * Deterministic YAML for workflow documents (export.md §4).
 *
 * @module
 */
import { isScalar, type Pair, stringify } from "yaml";
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
 * Serializes a workflow document as deterministic YAML (export.md §4).
 *
 * Mapping keys are sorted by UTF-16 code-unit order at every depth (even
 * integer-like keys, which JS objects would reorder); arrays keep their
 * order. Strings that a YAML 1.2 core-schema reader *or* a YAML 1.1 reader
 * would load as another type are quoted (`"1.0"`, `"true"`, `"null"`,
 * `"0o17"`, `"yes"`, ISO timestamps, …), so every string round-trips as a
 * string. Control characters and unpaired surrogates are written as
 * double-quoted escapes. No anchors, aliases, comments, tags, directives or
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
  return stringify(doc, {
    version: "1.2",
    schema: "core",
    compat: "yaml-1.1",
    sortMapEntries: byKey,
    aliasDuplicateObjects: false,
    lineWidth: 0,
    indent: 2,
    directives: false,
  });
}
