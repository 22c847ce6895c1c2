/**
 * Loading an agent file from disk, for library callers.
 *
 * @module
 */
import type { Agent } from "../schema/agent.ts";
import { parseAgentYaml } from "../schema/agent_file.ts";
import { InvalidFileError } from "./errors.ts";
import { describeFileProblem, readRegularFile } from "./regular_file.ts";

/**
 * Reads an agent file (`*.agent.yaml`: one YAML mapping) and validates it
 * strictly, as the CLI does.
 *
 * @param path The agent file.
 * @param options Tool ids the agent may list (absent ⇒ not checked).
 * @returns The agent exactly as authored.
 * @throws {InvalidFileError} When the file cannot be read, is not a
 * regular file of at most 1 MiB (a symlink to a device, a FIFO), or does
 * not validate; the message names the file, the line and the key path of
 * each problem.
 *
 * @example A missing system_prompt names the file, line and key
 * ```ts
 * import { InvalidFileError, loadAgentFile } from "@relavium/session/host";
 * import assert from "node:assert/strict";
 * const path = await Deno.makeTempFile({ suffix: ".agent.yaml" });
 * await Deno.writeTextFile(path, "id: helper\nmodel: gpt-5.4-mini\nprovider: openai\n");
 * await assert.rejects(loadAgentFile(path), (e) =>
 *   e instanceof InvalidFileError && e.message.startsWith(path) && e.message.includes("system_prompt"));
 * await Deno.writeTextFile(path, "id: helper\nmodel: gpt-5.4-mini\nprovider: openai\nsystem_prompt: Help.\n");
 * assert.equal((await loadAgentFile(path)).system_prompt, "Help.");
 * await Deno.remove(path);
 * ```
 */
export async function loadAgentFile(
  path: string,
  options: { knownTools?: readonly string[] } = {},
): Promise<Agent> {
  const read = await readRegularFile(path);
  if (!read.ok) {
    throw new InvalidFileError(
      path,
      `${describeFileProblem(path, read.error)}`,
    );
  }
  const text = new TextDecoder().decode(read.value);
  const parsed = parseAgentYaml(text, {
    file: path,
    ...(options.knownTools === undefined
      ? {}
      : { knownTools: options.knownTools }),
  });
  if (!parsed.ok) throw new InvalidFileError(path, parsed.error.message);
  return parsed.value;
}
