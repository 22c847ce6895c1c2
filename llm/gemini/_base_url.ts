/**
 * The official Gemini endpoint and the adapter's capabilities, apart from
 * the adapter so that what only names them loads none of it.
 *
 * @module
 */
import type { ProviderSupports } from "../provider.ts";

/**
 * The official Gemini API base URL (with the version).
 */
export const GEMINI_BASE_URL: string =
  "https://generativelanguage.googleapis.com/v1beta";

/**
 * What the Gemini adapter supports unless told otherwise.
 */
export const GEMINI_SUPPORTS: Readonly<ProviderSupports> = {
  tools: true,
  streaming: true,
  parallelToolCalls: true,
  reasoning: true,
  promptCache: true,
};
