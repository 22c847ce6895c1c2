/**
 * Built-in provider ids and model → provider inference.
 *
 * @module
 */

/**
 * Protocol families a provider id can resolve to.
 */
export type ProviderProtocol =
  | "anthropic"
  | "openai-compatible"
  | "openai-responses"
  | "gemini";

/**
 * The built-in provider ids and their protocol.
 */
export const BUILT_IN_PROVIDERS: Readonly<Record<string, ProviderProtocol>> = {
  anthropic: "anthropic",
  openai: "openai-compatible",
  gemini: "gemini",
  deepseek: "openai-compatible",
};

/**
 * Whether `id` is a built-in provider.
 *
 * @param id A provider id.
 * @returns `true` for `anthropic`, `openai`, `gemini`, `deepseek`.
 */
export function isBuiltInProvider(id: string): boolean {
  return Object.hasOwn(BUILT_IN_PROVIDERS, id);
}

/**
 * Infers the provider of a model id: `claude*` → anthropic,
 * `gpt*`/`o<digit>*` → openai, `gemini*` → gemini, `deepseek*` → deepseek.
 *
 * @param model A model id.
 * @returns The provider id, or `undefined` when it cannot be inferred.
 */
export function inferProvider(model: string): string | undefined {
  const m = model.toLowerCase();
  if (m.startsWith("claude")) return "anthropic";
  if (m.startsWith("gpt") || /^o\d/.test(m)) return "openai";
  if (m.startsWith("gemini")) return "gemini";
  if (m.startsWith("deepseek")) return "deepseek";
  return undefined;
}
