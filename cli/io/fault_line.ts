/**
 * The fault line a command ends with when it cannot run: `error: …` (or
 * one JSON line under `--json`) on stderr, redacted of every key the run
 * knows.
 *
 * @module
 */
import { paint } from "./color.ts";
import { type CliFault, exitCodeOf } from "../fault.ts";
import type { CliIo } from "./io.ts";
import { createSecretScreen } from "../../host/secrets.ts";
import { providerKeyVariables } from "../../llm/keys.ts";

/** The built-in providers, whose key variables a fault line never shows. */
const BUILTIN_PROVIDERS = ["anthropic", "openai", "gemini", "deepseek"];

// Keys a command learnt from its config (custom `[[providers]]` key
// variables included), per io: fault lines printed after that redact them.
const learnt = new WeakMap<CliIo, string[]>();

/**
 * Remembers the configured keys of a run, so that a fault printed on `io`
 * later redacts them too (not only the built-in providers' keys).
 *
 * @param io The command's io.
 * @param keys The key values.
 */
export function rememberFaultSecrets(
  io: CliIo,
  keys: readonly string[],
): void {
  learnt.set(io, [...(learnt.get(io) ?? []), ...keys]);
}

/**
 * Prints a fault and returns its exit code: under `--json` one line
 * `{"type":"error","code","message"}` on stderr, else `error: <message>`.
 * Stdout is never written. The message is redacted of the built-in
 * providers' keys, of the keys the run's config named (see
 * {@linkcode rememberFaultSecrets}) and of strings shaped like provider
 * keys.
 *
 * @param io Where to write.
 * @param f The fault.
 * @param options Output mode and colour.
 * @returns The exit code (1 for `internal`, else 2).
 */
export function printFault(
  io: CliIo,
  f: CliFault,
  options: { json: boolean; color: boolean },
): number {
  const keys = [
    ...BUILTIN_PROVIDERS.flatMap(providerKeyVariables)
      .map((v) => io.env(v) ?? ""),
    ...(learnt.get(io) ?? []),
  ];
  const message = createSecretScreen(keys).redact(f.message);
  if (options.json) {
    io.stderr.write(
      `${JSON.stringify({ type: "error", code: f.code, message })}\n`,
    );
  } else {
    io.stderr.write(`${paint("red", "error:", options.color)} ${message}\n`);
  }
  return exitCodeOf(f);
}
