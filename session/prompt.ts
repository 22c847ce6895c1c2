/**
 * `{{ctx.<key>}}` substitution in the authored system prompt
 * : plain substitution from trusted context variables;
 * an unresolvable reference is an error, never an empty string.
 *
 * @module
 */
import { err, ok, type Result } from "../schema/result.ts";

const CTX_REF = /\{\{\s*ctx\.([A-Za-z0-9_-]+)\s*\}\}/g;

/**
 * Resolves `{{ctx.key}}` references.
 *
 * @param prompt The authored `system_prompt`.
 * @param variables Trusted plaintext variables (`SessionContext.variables`).
 * @returns The resolved prompt, or the first missing key.
 */
export function resolveSystemPrompt(
  prompt: string,
  variables: Readonly<Record<string, string>> | undefined,
): Result<string, { missing: string }> {
  let missing: string | undefined;
  const out = prompt.replace(CTX_REF, (whole, key: string) => {
    const v = variables !== undefined && Object.hasOwn(variables, key)
      ? variables[key]
      : undefined;
    if (v === undefined) {
      missing ??= key;
      return whole;
    }
    return v;
  });
  return missing === undefined ? ok(out) : err({ missing });
}

/**
 * The agent's system prompt with `{{ctx.*}}` resolved from the context's
 * variables.
 *
 * @param agent The agent (its `system_prompt`).
 * @param context The session context (its `variables`).
 * @returns The resolved prompt.
 * @throws {TypeError} When a referenced variable is missing.
 */
export function requireSystemPrompt(
  agent: { system_prompt: string },
  context: { variables?: Readonly<Record<string, string>> },
): string {
  const system = resolveSystemPrompt(agent.system_prompt, context.variables);
  if (!system.ok) {
    throw new TypeError(
      `Cannot resolve the system prompt: no context variable "${system.error.missing}"`,
    );
  }
  return system.value;
}
