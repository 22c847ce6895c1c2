/**
 * The bundled model table: context windows, output ceilings and prices in
 * integer micro-cents per million tokens (USD/MTok × 1e8).
 *
 * Sources and what could be checked (offline, through stored copies of the
 * providers' pages):
 * - Anthropic prices (input, output, 5-minute cache write, cache hit) for
 *   Opus 4.6/4.5/4.1/4, Sonnet 4.6/4.5/4 and Haiku 4.5: the official pricing
 *   page (platform.claude.com/docs/…/about-claude/pricing). Opus 4.7 and
 *   4.8 prices: the same page (English version). Windows and output
 *   ceilings of Opus 4.6 and Sonnet 4.6 (1M / 128K): their official model
 *   overview pages. NOT verified: the windows and ceilings of the other
 *   Anthropic rows (Opus 4.7/4.8 are assumed to match Opus 4.6; the others
 *   use the 200K default window, 1M being a beta opt-in).
 * - OpenAI: gpt-5.4-mini ($0.75 / $4.50) is pinned by the upstream fixture
 *   (65 in + 21 out = 14 325 µ¢). The other OpenAI prices, cached rates,
 *   windows and ceilings come from secondary reproductions of
 *   openai.com/api/pricing and model pages, NOT the official page itself.
 *   gpt-5.4 uses 272K, the window its listed price applies to.
 * - DeepSeek (V3.2 behind both ids: $0.28 cache miss, $0.028 cache hit,
 *   $0.42 output, 128K window): a dated third-party table (Dec 2025); the
 *   stored official page predates that price change, so these are NOT
 *   verified against the official page. Output ceilings (8K chat, 64K
 *   reasoner) are from memory of the official docs, NOT verified.
 *
 * @module
 */
import type { ModelInfo } from "./catalog.ts";

/** USD per million tokens → µ¢ per million tokens. */
function usd(value: number): number {
  return Math.round(value * 1e8);
}

interface Row {
  id: string;
  name: string;
  window: number;
  maxOut: number;
  input: number;
  output: number;
  cached: number;
  write?: number;
  reasoning: boolean;
}

function rows(provider: string, list: readonly Row[]): ModelInfo[] {
  return list.map((r) => {
    const info: ModelInfo = {
      provider,
      id: r.id,
      displayName: r.name,
      contextWindowTokens: r.window,
      maxOutputTokens: r.maxOut,
      inputPerMtokMicrocents: usd(r.input),
      outputPerMtokMicrocents: usd(r.output),
      cachedInputPerMtokMicrocents: usd(r.cached),
      reasoning: r.reasoning,
    };
    if (r.write !== undefined) info.cacheWritePerMtokMicrocents = usd(r.write);
    return info;
  });
}

const K200 = 200_000;
const M1 = 1_000_000;
const OPUS_NEW = { input: 5, output: 25, cached: 0.5, write: 6.25 };
const OPUS_OLD = { input: 15, output: 75, cached: 1.5, write: 18.75 };
const SONNET = { input: 3, output: 15, cached: 0.3, write: 3.75 };
const GPT5 = { input: 1.25, output: 10, cached: 0.125 };
const GPT41 = { window: 1_047_576, maxOut: 32_768, reasoning: false };
const O_SERIES = { window: K200, maxOut: 100_000, reasoning: true };
const GPT5_SHAPE = { window: 400_000, maxOut: 128_000, reasoning: true };
const DEEPSEEK = { window: 128_000, input: 0.28, output: 0.42, cached: 0.028 };

/**
 * Every bundled model, by canonical id.
 */
export const BUILTIN_MODELS: readonly ModelInfo[] = [
  ...rows("anthropic", [
    {
      id: "claude-opus-4-8",
      name: "Claude Opus 4.8",
      window: M1,
      maxOut: 128_000,
      ...OPUS_NEW,
      reasoning: true,
    },
    {
      id: "claude-opus-4-7",
      name: "Claude Opus 4.7",
      window: M1,
      maxOut: 128_000,
      ...OPUS_NEW,
      reasoning: true,
    },
    {
      id: "claude-opus-4-6",
      name: "Claude Opus 4.6",
      window: M1,
      maxOut: 128_000,
      ...OPUS_NEW,
      reasoning: true,
    },
    {
      id: "claude-opus-4-5",
      name: "Claude Opus 4.5",
      window: K200,
      maxOut: 64_000,
      ...OPUS_NEW,
      reasoning: true,
    },
    {
      id: "claude-opus-4-1",
      name: "Claude Opus 4.1",
      window: K200,
      maxOut: 32_000,
      ...OPUS_OLD,
      reasoning: true,
    },
    {
      id: "claude-opus-4-0",
      name: "Claude Opus 4",
      window: K200,
      maxOut: 32_000,
      ...OPUS_OLD,
      reasoning: true,
    },
    {
      id: "claude-sonnet-4-6",
      name: "Claude Sonnet 4.6",
      window: M1,
      maxOut: 128_000,
      ...SONNET,
      reasoning: true,
    },
    {
      id: "claude-sonnet-4-5",
      name: "Claude Sonnet 4.5",
      window: K200,
      maxOut: 64_000,
      ...SONNET,
      reasoning: true,
    },
    {
      id: "claude-sonnet-4-0",
      name: "Claude Sonnet 4",
      window: K200,
      maxOut: 64_000,
      ...SONNET,
      reasoning: true,
    },
    {
      id: "claude-haiku-4-5",
      name: "Claude Haiku 4.5",
      window: K200,
      maxOut: 64_000,
      input: 1,
      output: 5,
      cached: 0.1,
      write: 1.25,
      reasoning: true,
    },
  ]),
  ...rows("openai", [
    {
      id: "gpt-5.4",
      name: "GPT-5.4",
      ...GPT5_SHAPE,
      window: 272_000,
      input: 2.5,
      output: 15,
      cached: 0.25,
    },
    {
      id: "gpt-5.4-mini",
      name: "GPT-5.4 mini",
      ...GPT5_SHAPE,
      input: 0.75,
      output: 4.5,
      cached: 0.075,
    },
    {
      id: "gpt-5.4-nano",
      name: "GPT-5.4 nano",
      ...GPT5_SHAPE,
      input: 0.2,
      output: 1.25,
      cached: 0.02,
    },
    {
      id: "gpt-5.2",
      name: "GPT-5.2",
      ...GPT5_SHAPE,
      input: 1.75,
      output: 14,
      cached: 0.175,
    },
    { id: "gpt-5.1", name: "GPT-5.1", ...GPT5_SHAPE, ...GPT5 },
    { id: "gpt-5", name: "GPT-5", ...GPT5_SHAPE, ...GPT5 },
    {
      id: "gpt-5-mini",
      name: "GPT-5 mini",
      ...GPT5_SHAPE,
      input: 0.25,
      output: 2,
      cached: 0.025,
    },
    {
      id: "gpt-5-nano",
      name: "GPT-5 nano",
      ...GPT5_SHAPE,
      input: 0.05,
      output: 0.4,
      cached: 0.005,
    },
    {
      id: "gpt-4.1",
      name: "GPT-4.1",
      ...GPT41,
      input: 2,
      output: 8,
      cached: 0.5,
    },
    {
      id: "gpt-4.1-mini",
      name: "GPT-4.1 mini",
      ...GPT41,
      input: 0.4,
      output: 1.6,
      cached: 0.1,
    },
    {
      id: "gpt-4.1-nano",
      name: "GPT-4.1 nano",
      ...GPT41,
      input: 0.1,
      output: 0.4,
      cached: 0.025,
    },
    {
      id: "gpt-4o",
      name: "GPT-4o",
      window: 128_000,
      maxOut: 16_384,
      input: 2.5,
      output: 10,
      cached: 1.25,
      reasoning: false,
    },
    {
      id: "gpt-4o-mini",
      name: "GPT-4o mini",
      window: 128_000,
      maxOut: 16_384,
      input: 0.15,
      output: 0.6,
      cached: 0.075,
      reasoning: false,
    },
    { id: "o3", name: "o3", ...O_SERIES, input: 2, output: 8, cached: 0.5 },
    {
      id: "o4-mini",
      name: "o4-mini",
      ...O_SERIES,
      input: 1.1,
      output: 4.4,
      cached: 0.275,
    },
    {
      id: "o3-mini",
      name: "o3-mini",
      ...O_SERIES,
      input: 1.1,
      output: 4.4,
      cached: 0.55,
    },
    { id: "o1", name: "o1", ...O_SERIES, input: 15, output: 60, cached: 7.5 },
  ]),
  ...rows("deepseek", [
    {
      id: "deepseek-chat",
      name: "DeepSeek Chat",
      ...DEEPSEEK,
      maxOut: 8_192,
      reasoning: false,
    },
    {
      id: "deepseek-reasoner",
      name: "DeepSeek Reasoner",
      ...DEEPSEEK,
      maxOut: 65_536,
      reasoning: true,
    },
  ]),
];

/**
 * Dated snapshot and legacy ids that resolve to a bundled canonical id.
 */
export const MODEL_ALIASES: Readonly<Record<string, string>> = {
  "claude-opus-4-5-20251101": "claude-opus-4-5",
  "claude-opus-4-1-20250805": "claude-opus-4-1",
  "claude-opus-4-20250514": "claude-opus-4-0",
  "claude-opus-4": "claude-opus-4-0",
  "claude-sonnet-4-5-20250929": "claude-sonnet-4-5",
  "claude-sonnet-4-20250514": "claude-sonnet-4-0",
  "claude-sonnet-4": "claude-sonnet-4-0",
  "claude-haiku-4-5-20251001": "claude-haiku-4-5",
  "gpt-4o-2024-08-06": "gpt-4o",
  "gpt-4o-2024-11-20": "gpt-4o",
  "gpt-4o-mini-2024-07-18": "gpt-4o-mini",
  "gpt-4.1-2025-04-14": "gpt-4.1",
  "gpt-5-2025-08-07": "gpt-5",
  "o3-2025-04-16": "o3",
  "o4-mini-2025-04-16": "o4-mini",
};
