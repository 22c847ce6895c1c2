/**
 * A provider whose adapter module loads on its first call: its face
 * (id, kind, capabilities, endpoint) is known at once, its `stream` imports
 * the adapter once and delegates, so a session that never calls it never
 * loads it.
 *
 * @module
 */
import type { StreamChunk } from "./chunk.ts";
import type { LlmProvider, LlmRequest } from "./provider.ts";

/**
 * Wraps a loader as a provider.
 *
 * @param face Everything of the provider but `stream`.
 * @param load Imports the adapter module and builds the real provider
 *   (called once, on the first `stream`).
 * @returns The provider.
 */
export function lazyProvider(
  face: Omit<LlmProvider, "stream">,
  load: () => Promise<LlmProvider>,
): LlmProvider {
  let ready: LlmProvider | undefined;
  let loading: Promise<LlmProvider> | undefined;
  async function* first(
    req: LlmRequest,
    key: string,
  ): AsyncGenerator<StreamChunk> {
    loading ??= load();
    ready = await loading;
    yield* ready.stream(req, key);
  }
  // Once loaded, each call goes straight to the adapter.
  return {
    ...face,
    stream: (req, key) =>
      ready === undefined ? first(req, key) : ready.stream(req, key),
  };
}
