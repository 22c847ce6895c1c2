/**
 * `--fixture <cassette>`: loads a cassette and wires it as the providers
 * of a session. A malformed cassette is a
 * file-attributed `invalid_cassette` fault (exit 2); faults during the run
 * (extra call, expectation mismatch, unconsumed calls under `strict`) make
 * the process exit 1.
 *
 * @module
 */
import { resolve } from "../../schema/paths.ts";
import { parseCassette } from "../../llm/cassette.ts";
import { createReplay, type Replay } from "../../llm/replay_provider.ts";
import { renderIssues } from "../../schema/issues.ts";
import { err, ok, type Result } from "../../schema/result.ts";
import { type CliFault, fault } from "../fault.ts";

/**
 * The fixed, non-secret key a replay provider is called with.
 */
export const REPLAY_KEY: string = "replay";

/**
 * Loads a cassette for an agent whose primary provider is `primaryProvider`.
 *
 * @param path The `--fixture` path (relative to `cwd`).
 * @param options The effective cwd and the agent's primary provider.
 * @returns The replay, or a fault: `not_found`, `invalid_cassette`
 * (bad JSON, version, chunk, keys; or a provider that is not the primary).
 */
export async function loadFixture(
  path: string,
  options: { cwd: string; primaryProvider: string },
): Promise<Result<Replay, CliFault>> {
  const file = resolve(options.cwd, path);
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      return err(fault("not_found", `Cassette not found: ${file}`));
    }
    if (e instanceof Deno.errors.IsADirectory) {
      return err(
        fault("invalid_cassette", `Invalid cassette: ${file} is a directory`),
      );
    }
    const why = e instanceof Error ? e.name : "unknown error";
    return err(fault("internal", `Cannot read cassette ${file}: ${why}`));
  }
  const parsed = parseCassette(text, file);
  if (!parsed.ok) {
    return err(fault(
      "invalid_cassette",
      `Invalid cassette: ${
        renderIssues(parsed.error.file, parsed.error.issues)
      }`,
    ));
  }
  const replay = createReplay(parsed.value, {
    primaryProvider: options.primaryProvider,
  });
  const primary = replay.checkPrimary();
  if (!primary.ok) {
    return err(fault(
      "invalid_cassette",
      `Invalid cassette: ${
        renderIssues(primary.error.file, primary.error.issues)
      }`,
    ));
  }
  return ok(replay);
}
