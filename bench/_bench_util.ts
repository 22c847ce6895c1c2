/**
 * Small pieces the benches share: printing, the median, a file probe and
 * an in-memory provider that answers every call at once.
 *
 * @module
 */
import type { StreamChunk } from "../llm/chunk.ts";
import type { LlmProvider } from "../llm/provider.ts";
import { split } from "../tests/_kit/session_parts.ts";
import { FAKE_SUPPORTS } from "../llm/scripted_provider.ts";
import type { SessionDeps } from "../session/deps.ts";
import type { SessionRuntime } from "../host/runtime.ts";
import type { TurnResult } from "../session/turn_result.ts";

const encoder = new TextEncoder();

/** Writes `text` to stdout (the benches' report). */
export function out(text: string): void {
  Deno.stdout.writeSync(encoder.encode(text));
}

/**
 * Throws unless the turn completed: a refused or failed turn returns at
 * once, and a bench timing it would report a figure of nothing.
 *
 * @param result What `sendMessage` returned (or its promise).
 */
export async function completedTurn(
  result: TurnResult | Promise<TurnResult>,
): Promise<void> {
  const r = await result;
  if (r.kind !== "completed") {
    throw new Error(
      `bench turn did not complete: ${r.kind}${
        r.kind === "failed" ? ` (${r.error.code}: ${r.error.message})` : ""
      }`,
    );
  }
}

/** The median of `values` (`NaN` when empty). */
export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1
    ? s[mid] ?? Number.NaN
    : ((s[mid - 1] ?? Number.NaN) + (s[mid] ?? Number.NaN)) / 2;
}

/**
 * The value after `name` on the command line (`--runs 9`), else `fallback`.
 *
 * @throws {RangeError} When `name` is the last argument.
 */
export function flag(name: string, fallback: string): string {
  const i = Deno.args.indexOf(name);
  if (i === -1) return fallback;
  const v = Deno.args[i + 1];
  if (v === undefined) throw new RangeError(`${name} needs a value`);
  return v;
}

/** Whether `path` exists. */
export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * A provider that answers every call at once with `reply()` (no
 * recording, no network), declaring every capability but reasoning and
 * prompt caching.
 *
 * @param id Provider id: `openai` (kind `openai-compatible`) or `anthropic`.
 * @param reply The chunks of each answer.
 * @returns The provider.
 */
export function instantProvider(
  id: "openai" | "anthropic",
  reply: () => Iterable<StreamChunk>,
): LlmProvider {
  return {
    id,
    kind: id === "openai" ? "openai-compatible" : "anthropic",
    customEndpoint: false,
    supports: { ...FAKE_SUPPORTS },
    async *stream(): AsyncIterable<StreamChunk> {
      yield* reply();
    },
  };
}

/**
 * Engine deps for a bench session: a counting clock and ids, `provider`
 * for every id, no key, instant sleeps, events dropped, a turn cap out of
 * reach; `extra` replaces or adds any of them.
 *
 * @param provider The provider of every call.
 * @param extra Deps to set instead or besides.
 * @returns The deps.
 */
export function benchDeps(
  provider: LlmProvider,
  extra: Partial<SessionDeps> = {},
): ReturnType<typeof split> {
  let n = 0;
  return split({
    clock: { now: () => 1_767_225_600_000 + n },
    ids: () => `id-${n++}`,
    resolveProvider: () => provider,
    keyFor: () => "",
    sleep: () => Promise.resolve(),
    emit: () => {},
    maxTurns: 1_000_000,
    ...extra,
  });
}

/**
 * The whole number N ≥ 1 after `name` on the command line, else
 * `fallback`.
 *
 * @throws {RangeError} When the value is not a whole number ≥ 1.
 */
export function countFlag(name: string, fallback: number): number {
  const n = Number(flag(name, String(fallback)));
  if (!Number.isInteger(n) || n < 1) {
    throw new RangeError(`${name} needs N ≥ 1`);
  }
  return n;
}

/**
 * A host runtime for a bench session: the given clock, ids and provider,
 * instant sleeps, no network, no catalog (every turn does the same work),
 * no key, working folder `/work`.
 */
export function benchRuntime(
  clock: { now: () => number },
  ids: () => string,
  provider: LlmProvider,
): SessionRuntime {
  return {
    clock,
    ids,
    sleep: () => Promise.resolve(),
    fetch: () => Promise.reject(new Error("offline bench")),
    catalog: { lookup: () => undefined },
    keyFor: () => "",
    workingDir: "/work",
    resolveProvider: () => provider,
  };
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ??
    Number.NaN;
}

/**
 * Latency samples as `p50 … ms, p95 … ms`.
 *
 * @param samplesMs The samples, milliseconds, in any order.
 * @returns The two percentiles, two decimals.
 */
export function figures(samplesMs: readonly number[]): string {
  const s = [...samplesMs].sort((a, b) => a - b);
  return `p50 ${percentile(s, 0.5).toFixed(2)} ms, p95 ${
    percentile(s, 0.95).toFixed(2)
  } ms`;
}
