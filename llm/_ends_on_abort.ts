/**
 * The mark of a chunk iterator that ends by itself on its request's abort.
 *
 * @module
 */

/**
 * Marks an iterator whose pending `next` settles promptly once its
 * request's signal aborts (the HTTP adapters' streams: their watchdog
 * cancels the body's reader), so the chain need not race each read with
 * the signal.
 */
export const ENDS_ON_ABORT: unique symbol = Symbol("endsOnAbort");

/**
 * Whether an iterator carries {@linkcode ENDS_ON_ABORT}.
 *
 * @param iterator A provider's chunk iterator.
 * @returns `true` when marked.
 */
export function endsOnAbort(iterator: object): boolean {
  return (iterator as { [ENDS_ON_ABORT]?: unknown })[ENDS_ON_ABORT] === true;
}
