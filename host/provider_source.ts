/**
 * Where a hosted session's providers come from: the runtime's resolver,
 * else a replay of its cassette (one replay per runtime), else none.
 *
 * @module
 */
import { createReplay } from "../llm/replay_provider.ts";
import type { LlmProvider } from "../llm/provider.ts";
import type { Agent } from "../schema/agent.ts";
import type { SessionRuntime } from "./runtime.ts";

// One replay per runtime: the sessions a runtime runs (an open, then a
// resume) consume its cassette in order.
const replays = new WeakMap<
  SessionRuntime,
  (id: string) => LlmProvider | undefined
>();

/**
 * The provider resolver of a session of `agent` on `runtime`.
 *
 * @param runtime The runtime.
 * @param agent The session's agent (its primary provider replays a cassette).
 * @returns The resolver.
 */
export function providersFor(
  runtime: SessionRuntime,
  agent: Agent,
): (id: string) => LlmProvider | undefined {
  if (runtime.resolveProvider !== undefined) {
    const own = runtime.resolveProvider;
    return (id) => own.call(runtime, id);
  }
  const cassette = runtime.cassette;
  if (cassette !== undefined) {
    let replay = replays.get(runtime);
    if (replay === undefined) {
      const r = createReplay(cassette, { primaryProvider: agent.provider });
      replay = (id) => r.resolveProvider(id);
      replays.set(runtime, replay);
    }
    return replay;
  }
  // Neither a resolver nor a cassette: the runtime offers no provider
  // (denoRuntime() supplies the shipped adapters as its resolver).
  return () => undefined;
}
