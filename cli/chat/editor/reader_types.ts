/**
 * What the interactive chat's terminal line editor offers beyond a
 * plain line reader: reading a message after a prompt, and the keys it
 * takes while no line is being read (a turn runs).
 *
 * @module
 */
import type { LineReader } from "../../io/stdin.ts";

/**
 * A key taken while no line is read: Ctrl-C (when it arrives as a key)
 * or Esc ⇒ `interrupt`; `/cancel` typed and entered ⇒ `cancel`.
 */
export type ControlKey = "interrupt" | "cancel";

/**
 * The terminal line editor. `next()` reads one short answer (an
 * approval, a trust question) on the line the question is on; type-ahead
 * never answers it.
 */
export interface TerminalReader extends LineReader {
  /** Marks this reader as the terminal editor. */
  readonly terminal: true;
  /**
   * Shows `prompt` and reads one message with editing, history, `@`
   * completion and multi-line input; text typed ahead (during the turn
   * before) is pre-filled, and a message entered ahead is returned at
   * once.
   *
   * @returns The message, or `undefined` when the chat should end
   * (Ctrl-D or Ctrl-C twice on an empty line, end of input).
   */
  readMessage(prompt: string): Promise<string | undefined>;
  /**
   * Registers a handler of the keys taken while no line is read.
   *
   * @returns A function that removes it.
   */
  onControl(handler: (key: ControlKey) => void): () => void;
}
