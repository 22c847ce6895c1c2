/**
 * The kebab-case id pattern, in a module of its own so zod-free readers
 * can use it without loading the agent schema.
 *
 * @module
 */

/** Kebab id: `^[a-z0-9]+(-[a-z0-9]+)*$` (agent ids, tool ids, slugs). */
export const KEBAB_ID: RegExp = /^[a-z0-9]+(-[a-z0-9]+)*$/;
