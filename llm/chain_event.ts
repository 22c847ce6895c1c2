/**
 * The events of one fallback-chain call: a shared type of the chain and
 * its attempt runner.
 *
 * @module
 */
import type { LlmError, StopReason, StreamChunk, Usage } from "./chunk.ts";
import type { SessionError } from "../schema/event.ts";

/**
 * Events of one chain call, in order: for each real attempt an
 * `attempt_start`, then that attempt's non-terminal `chunk`s; finally one
 * `done` or one `failed`.
 */
export type ChainEvent =
  | {
    type: "attempt_start";
    attemptNumber: number;
    provider: string;
    model: string;
  }
  | {
    type: "chunk";
    attemptNumber: number;
    provider: string;
    model: string;
    /** Never `stop` or `error`. */
    chunk: Exclude<StreamChunk, { type: "stop" } | { type: "error" }>;
  }
  | {
    type: "done";
    attemptNumber: number;
    provider: string;
    model: string;
    stopReason: StopReason;
    usage: Usage;
    contextExceeded?: true;
  }
  | {
    type: "failed";
    /** The classified provider error (after retries and failover). */
    error?: LlmError;
    /** Set instead of `error` when admission refused the attempt. */
    refusal?: SessionError;
    /** Whether any real invocation was made in this call. */
    engaged: boolean;
  };
