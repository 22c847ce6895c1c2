/**
 * The engine: `AgentSession`, its states, turn loop and events.
 *
 * @example Deps type
 * ```ts
 * import type { Clock } from "@relavium/session/session";
 * const clock: Clock = { now: () => 0 };
 * ```
 *
 * @module
 */
export * from "./deps.ts";
