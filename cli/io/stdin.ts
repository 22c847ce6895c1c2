/**
 * Reading stdin: line by line (chat messages, confirmations) or whole
 * (the `agent run` prompt).
 *
 * @module
 */
import type { CliIo } from "./io.ts";

/**
 * Reads lines one at a time.
 */
export interface LineReader {
  /**
   * The next line without its `\n` / `\r\n`; `undefined` at end of input.
   * Calls made while a read is in flight share it: a caller that stops
   * waiting (an approval prompt cut short by Ctrl-C) loses no line.
   */
  next(): Promise<string | undefined>;
  /** Stops reading and releases the stream. */
  close(): Promise<void>;
}

/**
 * Creates a line reader over a byte stream (UTF-8).
 *
 * @param stream The input.
 * @returns The reader.
 */
export function createLineReader(
  stream: ReadableStream<Uint8Array>,
): LineReader {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let done = false;
  let pending: Promise<string | undefined> | undefined;
  async function readLine(): Promise<string | undefined> {
    for (;;) {
      const nl = buffer.indexOf("\n");
      if (nl !== -1) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        return line.endsWith("\r") ? line.slice(0, -1) : line;
      }
      if (done) {
        if (buffer === "") return undefined;
        const last = buffer;
        buffer = "";
        return last;
      }
      const chunk = await reader.read();
      if (chunk.done) {
        done = true;
        buffer += decoder.decode();
      } else {
        buffer += decoder.decode(chunk.value, { stream: true });
      }
    }
  }
  return {
    async next(): Promise<string | undefined> {
      const p = pending ?? (pending = readLine());
      try {
        return await p;
      } finally {
        if (pending === p) pending = undefined;
      }
    },
    async close(): Promise<void> {
      done = true;
      try {
        await reader.cancel();
      } catch {
        // already closed
      }
      reader.releaseLock();
    },
  };
}

/**
 * Reads all of the io's stdin as UTF-8 text: through its whole-input
 * reader when it has one (no web stream loads), else its stream.
 *
 * @param io The command's io.
 * @returns The text.
 */
export async function readStdinText(io: CliIo): Promise<string> {
  if (io.readAllStdin === undefined) return await readAllText(io.stdin);
  return new TextDecoder().decode(await io.readAllStdin());
}

/**
 * Reads the whole input as UTF-8 text.
 *
 * @param stream The input.
 * @returns The text.
 */
export async function readAllText(
  stream: ReadableStream<Uint8Array>,
): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of stream) {
    text += decoder.decode(chunk, { stream: true });
  }
  return text + decoder.decode();
}
