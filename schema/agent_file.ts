/**
 * Agent files: YAML text (one mapping document, core schema) validated by
 * the strict agent schema, every problem named by file, line and key path.
 *
 * @module
 */
import { type Agent, parseAgent } from "./agent.ts";
import type { ValidationIssue } from "./issues.ts";
import { err, ok, type Result } from "./result.ts";
import { readYaml, renderFileIssues, withLines } from "./_yaml.ts";

/**
 * Why an agent file could not be read: the file, every issue (with its
 * line when known) and all of them as one `file:line: path: message` text.
 */
export interface AgentFileError {
  /** The file name given to {@linkcode parseAgentYaml}. */
  file: string;
  /** One entry per problem. */
  issues: ValidationIssue[];
  /** The issues, one `file:line: path: message` line each. */
  message: string;
}

/** Options of {@linkcode parseAgentYaml}. */
export interface ParseAgentYamlOptions {
  /** The file name used in errors. */
  file: string;
  /** Tool ids the agent may list; any other id is an issue. */
  knownTools?: readonly string[];
}

function failure(
  file: string,
  issues: ValidationIssue[],
): { ok: false; error: AgentFileError } {
  return err({ file, issues, message: renderFileIssues(file, issues) });
}

/**
 * Reads and strictly validates the YAML text of an agent file.
 *
 * @param text The YAML text.
 * @param options The file name for errors, and optionally the known tools.
 * @returns The agent exactly as authored, or every issue with its line.
 */
export function parseAgentYaml(
  text: string,
  options: ParseAgentYamlOptions,
): Result<Agent, AgentFileError> {
  const { file, knownTools } = options;
  const read = readYaml(text);
  if (!read.ok) return failure(file, [read.error]);
  const parsed = parseAgent(read.value.value, file);
  if (!parsed.ok) {
    return failure(file, withLines(parsed.error.issues, read.value.lines));
  }
  if (knownTools !== undefined) {
    const issues: ValidationIssue[] = [];
    (parsed.value.tools ?? []).forEach((tool, i) => {
      if (!knownTools.includes(tool)) {
        issues.push({ path: `tools[${i}]`, message: `unknown tool "${tool}"` });
      }
    });
    if (issues.length > 0) {
      return failure(file, withLines(issues, read.value.lines));
    }
  }
  return ok(parsed.value);
}
