/**
 * The mark of a provider's chunk stream that can also be read one list of
 * chunks at a time.
 *
 * @module
 */
import type { StreamChunk } from "./chunk.ts";

/**
 * A method on a chunk iterator (not yet read) giving the same stream as
 * lists of chunks, one list per read of the response body, in order. Its
 * pending `next` settles promptly once the request's signal aborts (the
 * HTTP adapters' watchdog cancels the body's reader), so the chain reads it
 * without racing each read with the signal, and hands out a list's chunks
 * with no await between them. A stream read this way must not be read as
 * chunks too.
 */
export const CHUNK_BATCHES: unique symbol = Symbol("chunkBatches");

/** A chunk iterator that carries {@linkcode CHUNK_BATCHES}. */
export interface BatchedChunks {
  /** Opens the stream as lists of chunks. */
  [CHUNK_BATCHES](): AsyncIterator<StreamChunk[]>;
}

/**
 * The list reader of an iterator that carries {@linkcode CHUNK_BATCHES}.
 *
 * @param iterator A provider's chunk iterator, not yet read.
 * @returns Its lists of chunks, or `undefined` when it has no such mark.
 */
export function chunkBatches(
  iterator: object,
): AsyncIterator<StreamChunk[]> | undefined {
  const open = (iterator as Partial<BatchedChunks>)[CHUNK_BATCHES];
  return typeof open === "function" ? open.call(iterator) : undefined;
}
