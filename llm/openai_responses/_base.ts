/**
 * The official base URL both forms of the Responses provider (eager and
 * lazy) resolve against.
 *
 * @module
 */

/** The official OpenAI base URL (with the version). */
export const RESPONSES_BASE_URL = "https://api.openai.com/v1";
