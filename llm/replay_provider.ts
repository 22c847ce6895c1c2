/**
 * The replay provider: serves a cassette's
 * recorded calls in order and records every fault that must make the
 * process exit 1.
 *
 * @module
 */
import type { StreamChunk } from "./chunk.ts";
import type { LlmProvider, LlmRequest } from "./provider.ts";
import type { Cassette, CassetteCall, CassetteError } from "./cassette.ts";
import type { Result } from "../schema/result.ts";
import { makeLlmError } from "./errors.ts";
import { expectMismatches } from "./_cassette_expect.ts";

/**
 * A loaded cassette wired as providers.
 */
export interface Replay {
  /** A replay provider for any id (see {@linkcode createReplay}). */
  resolveProvider(id: string): LlmProvider | undefined;
  /** Faults so far: extra calls, expectation mismatches, unmapped ids. */
  faults(): string[];
  /** Recorded calls not yet replayed, over all queues. */
  unconsumed(): number;
  /** Load-time check: a single-queue cassette names the primary provider. */
  checkPrimary(): Result<void, CassetteError>;
  /** {@linkcode Replay.faults} plus, under `strict`, unconsumed calls. */
  finalFaults(): string[];
}

interface Queue {
  label: string;
  calls: readonly CassetteCall[];
  used: number;
}

function errorChunk(provider: string, message: string): StreamChunk {
  return { type: "error", error: makeLlmError("unknown", provider, message) };
}

async function* replay(
  chunks: readonly StreamChunk[],
  signal: AbortSignal | undefined,
): AsyncGenerator<StreamChunk> {
  for (const chunk of chunks) {
    if (signal?.aborted === true) return;
    yield structuredClone(chunk);
  }
}

/**
 * Wires a cassette as providers. A single-queue cassette (top-level
 * `provider`/`calls`) replaces every provider of the plan with one queue;
 * a v1.1 `providers` map gives one queue per id, and an id without a queue
 * still resolves to a provider whose calls fail with a fault. Each queue
 * has one call counter across tool rounds and turns. An extra call, an
 * `expect` mismatch or an unmapped id yields a fatal `unknown` error chunk
 * and records a fault. Providers report `tools` and `streaming` only, need
 * no real key, and have no `generate`.
 *
 * @param cassette The parsed cassette.
 * @param options The agent's primary provider.
 * @returns The replay handle.
 */
export function createReplay(
  cassette: Cassette,
  options: {
    /** The agent's primary provider id (a single-queue cassette must name it). */
    primaryProvider: string;
  },
): Replay {
  const faults: string[] = [];
  const queues = new Map<string, Queue>();
  let shared: Queue | undefined;
  if (cassette.queues.kind === "single") {
    shared = { label: "calls", calls: cassette.queues.calls, used: 0 };
  } else {
    for (const [id, calls] of Object.entries(cassette.queues.providers)) {
      queues.set(id, { label: `providers.${id}`, calls, used: 0 });
    }
  }
  const fault = (message: string): void => {
    faults.push(`${cassette.file}: ${message}`);
  };
  function next(id: string, req: LlmRequest): readonly StreamChunk[] {
    const queue = shared ?? queues.get(id);
    if (queue === undefined) {
      const message = `no cassette queue for provider ${id}`;
      fault(message);
      return [errorChunk(id, message)];
    }
    const n = ++queue.used;
    const call = queue.calls[n - 1];
    if (call === undefined) {
      const message =
        `unexpected stream call #${n} (only ${queue.calls.length} recorded)`;
      fault(`${queue.label}: ${message}`);
      return [errorChunk(id, message)];
    }
    const diff = call.expect === undefined
      ? []
      : expectMismatches(call.expect, req);
    if (diff.length > 0) {
      const detail = diff.join("; ");
      fault(`${queue.label} call #${n}: ${detail}`);
      return [errorChunk(id, `cassette expectation failed: ${detail}`)];
    }
    return call.chunks;
  }
  const providers = new Map<string, LlmProvider>();
  function resolveProvider(id: string): LlmProvider {
    const known = providers.get(id);
    if (known !== undefined) return known;
    const provider: LlmProvider = {
      id,
      kind: id === "anthropic" ? "anthropic" : "openai-compatible",
      customEndpoint: false,
      supports: {
        tools: true,
        streaming: true,
        parallelToolCalls: false,
        reasoning: false,
        promptCache: false,
      },
      stream(req: LlmRequest, _key: string): AsyncIterable<StreamChunk> {
        return replay(next(id, req), req.signal);
      },
    };
    const window = cassette.contextWindow;
    if (window !== undefined) provider.contextLimit = () => window;
    providers.set(id, provider);
    return provider;
  }
  const all = (): Queue[] =>
    shared !== undefined ? [shared] : [...queues.values()];
  const unconsumed = (): number =>
    all().reduce((n, q) => n + Math.max(0, q.calls.length - q.used), 0);
  return {
    resolveProvider,
    faults: () => [...faults],
    unconsumed,
    checkPrimary(): Result<void, CassetteError> {
      const q = cassette.queues;
      if (q.kind === "per_provider" || q.provider === options.primaryProvider) {
        return { ok: true, value: undefined };
      }
      const message = `must equal the agent's primary provider ${
        JSON.stringify(options.primaryProvider)
      }, got ${JSON.stringify(q.provider)}`;
      return {
        ok: false,
        error: { file: cassette.file, issues: [{ path: "provider", message }] },
      };
    },
    finalFaults(): string[] {
      const left = unconsumed();
      if (!cassette.strict || left === 0) return [...faults];
      return [
        ...faults,
        `${cassette.file}: ${left} recorded call(s) not consumed (strict)`,
      ];
    },
  };
}
