/**
 * Strict re-parse of a workflow document, with the package's one YAML
 * reader.
 *
 * @module
 */
import {
  formatPath,
  toIssues,
  type ValidationIssue,
} from "../schema/issues.ts";
import { err, ok, type Result } from "../schema/result.ts";
import { readYaml, renderFileIssues, withLines } from "../schema/_yaml.ts";
import { documentSchema } from "./_schema.ts";
import type { WorkflowDocument, WorkflowParseError } from "./document.ts";

/**
 * Parses and strictly validates a `.relavium.yaml` workflow document.
 *
 * YAML is read with the 1.2 core schema (no timestamp type, no other
 * implicit types; known and custom tags other than the core ones are
 * refused), one document only, unique string keys, at most 100 aliases and
 * none inside the node it names. Then the workflow subset is enforced: `schema_version` is the string
 * `"1.0"`; `workflow.id` is kebab-case; unknown top-level, `workflow`,
 * node and edge keys are errors; nodes are strict by `type` (`input`,
 * `output`, `agent` with a kebab `agent_ref`, optional `prompt_template`,
 * `tools`, and the other keys the full schema allows); node ids are
 * kebab-case and unique; every edge endpoint names an existing node;
 * `prompt_template` (and `system_prompt_append`) must not hold a
 * `{{ secrets.* }}` reference; `agents[]` entries are mappings with a
 * string `id` (not re-validated as agents: a workflow carries them as
 * data); `metadata` is
 * a free-form mapping. Agents are not required, and node `tools` are not
 * checked against agent tools (later plan-building checks).
 *
 * @param text The YAML text.
 * @param source The file name or other origin, echoed in the error.
 * @returns The document, or every issue with the key path it concerns
 * (e.g. `workflow.nodes[2].agent_ref`; `""` for the root or a YAML
 * error) and its line when known, and all of them as one
 * `source:line: path: message` text.
 *
 * @example A valid document
 * ```ts
 * import { parseWorkflow } from "@relavium/session/export";
 * import assert from "node:assert/strict";
 * const r = parseWorkflow(
 *   [
 *     'schema_version: "1.0"',
 *     "workflow:",
 *     "  id: hello",
 *     "  nodes: [{ id: input, type: input }, { id: output, type: output }]",
 *     "  edges: [{ from: input, to: output }]",
 *   ].join("\n"),
 *   "hello.relavium.yaml",
 * );
 * assert.equal(r.ok, true);
 * if (r.ok) assert.equal(r.value.workflow.nodes.length, 2);
 * ```
 *
 * @example Errors name the path
 * ```ts
 * import { parseWorkflow } from "@relavium/session/export";
 * import assert from "node:assert/strict";
 * const r = parseWorkflow(
 *   [
 *     "schema_version: 1.0",
 *     "workflow:",
 *     "  id: hello",
 *     "  nodes: [{ id: input, type: input }, { id: t, type: agent, agent_ref: Mini }]",
 *     "  edges: [{ from: input, to: nowhere }]",
 *   ].join("\n"),
 *   "hello.relavium.yaml",
 * );
 * assert.equal(r.ok, false);
 * if (!r.ok) {
 *   assert.deepEqual(r.error.issues.map((i) => i.path), [
 *     "schema_version",
 *     "workflow.nodes[1].agent_ref",
 *     "workflow.edges[0].to",
 *   ]);
 * }
 * ```
 */
export function parseWorkflow(
  text: string,
  source: string,
): Result<WorkflowDocument, WorkflowParseError> {
  const fail = (issues: ValidationIssue[]) =>
    err({ source, issues, message: renderFileIssues(source, issues) });
  const read = readYaml(text);
  if (!read.ok) return fail([read.error]);
  const { value, lines } = read.value;
  if (!isRecord(value)) {
    return fail([{ path: "", message: "must be a single mapping document" }]);
  }

  const parsed = documentSchema.safeParse(value);
  const issues = parsed.success ? [] : toIssues(parsed.error);
  issues.push(...graphIssues(value));
  if (issues.length > 0) return fail(withLines(issues, lines));
  // The schema only validates (no defaults, coercion or stripping), so the
  // decoded value is the document. zod's copy is not used: it would turn
  // an own `__proto__` key of free-form data into a prototype.
  return ok(value as unknown as WorkflowDocument);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Node-id uniqueness and edge endpoints, checked on the raw value so they
 * are reported together with the structural issues.
 */
function graphIssues(root: Record<string, unknown>): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const workflow = root.workflow;
  if (!isRecord(workflow)) return issues;
  const firstAt = new Map<string, number>();
  if (Array.isArray(workflow.nodes)) {
    workflow.nodes.forEach((node: unknown, i) => {
      if (!isRecord(node) || typeof node.id !== "string") return;
      const first = firstAt.get(node.id);
      if (first === undefined) {
        firstAt.set(node.id, i);
        return;
      }
      issues.push({
        path: formatPath(["workflow", "nodes", i, "id"]),
        message: `duplicates the id of workflow.nodes[${first}]`,
      });
    });
  }
  if (Array.isArray(workflow.edges)) {
    workflow.edges.forEach((edge: unknown, i) => {
      if (!isRecord(edge)) return;
      for (const end of ["from", "to"] as const) {
        const id = edge[end];
        if (typeof id === "string" && !firstAt.has(id)) {
          issues.push({
            path: formatPath(["workflow", "edges", i, end]),
            message: "must name an existing node",
          });
        }
      }
    });
  }
  return issues;
}
