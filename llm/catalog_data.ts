/**
 * The bundled model table: context windows, output ceilings, prices in
 * integer micro-cents per million tokens (USD/MTok × 1e8) and the
 * capability flags that shape requests. Rows are the models a new API
 * customer can buy in December 2026; retired and invitation-only models
 * are left out (an unknown id still runs, unpriced).
 *
 * What each row group was checked against (offline, through stored copies
 * of the providers' pages and the official SDKs' model unions:
 * `@anthropic-ai/sdk` 1.16.0 `Model`, `openai` 6.49.0 `ChatModel`):
 *
 * - Anthropic ids: the SDK's `Model` union (Sonnet 4.5, Opus 4.1, Opus 4
 *   and Sonnet 4 are no longer in it, and the official pricing page marks
 *   Opus 4.1 and Opus 4 retired: removed). Claude Mythos 5/5.1/5.2 are
 *   invitation-only (Project Glasswing) and Mythos Preview is past its
 *   end of life (SDK deprecation table): left out. Opus 4.5 is deprecated
 *   (end of life 2027-01-22, same table) and still listed.
 * - Anthropic prices, checked against the official pricing page (input,
 *   5-minute and 1-hour cache writes, cache hits, output): Fable 5.1,
 *   Fable 5, Opus 5, Opus 4.8/4.7/4.6/4.5, Sonnet 4.6, Haiku 4.5; against
 *   the official model pages: Opus 5.5 ($4/$20, $5/$8 writes, $0.20 hits),
 *   Sonnet 5 ($2/$10, $2.50/$4, $0.20). Fable 5.2 ($8/$40, $0.20 hits):
 *   the official model pages' comparison table plus a dated third-party
 *   changelog; its cache writes are the standard 1.25×/2× multipliers, NOT
 *   seen on an official page. Sonnet 5.5 ($2/$10, $2.50/$4) with the
 *   2026-10-07 cache-hit cut to $0.10: third-party changelogs, NOT the
 *   official page. Haiku 5.5 ($0.10/$0.50 up to 100K prompt tokens,
 *   $0.125/$0.20 writes, $0.01 hits; $0.50/$2.50 above): third-party
 *   changelogs; its long-context cache rates are the same multipliers,
 *   NOT verified.
 * - Anthropic windows and ceilings: 1M / 128K for every 5.x row and Opus
 *   4.6–4.8 (official model pages and their comparison tables); Sonnet
 *   4.6 (1M / 128K) as before; Haiku 4.5 and Opus 4.5 200K / 64K
 *   (official comparison table for Haiku 4.5; Opus 4.5 NOT re-checked).
 * - Anthropic capabilities, from the official thinking troubleshooting
 *   table and migration guides: adaptive-only thinking on 4.7 and later;
 *   thinking always on (cannot be disabled) on Fable 5, 5.1 and Opus 5.5;
 *   Sonnet 5.5 turns thinking down with `between_tools`; thinking on by
 *   default on Opus 5, Sonnet 5, and the 5.5 models; sampling parameters
 *   refused by Sonnet 5 (its official page) and by Opus 4.7/4.8 (the
 *   provider's 400s). That the other 5.x models refuse sampling
 *   parameters too, and that Fable 5.2 behaves as Fable 5.1, is inferred
 *   (the SDK no longer has a `temperature` field), NOT verified. Effort
 *   tiers: `low`–`max` on 4.6, plus `xhigh` from 4.7 (third-party
 *   references of the effort page).
 * - OpenAI, official model pages: gpt-6.2-sol ($2/$10, $0.10 cached,
 *   $2.50 cache writes, 2× input and cache / 1.5× output above 272K input
 *   tokens, 1,050,000 / 128,000, rejects effort `none`) and gpt-5.6-luna
 *   ($0.20/$1.20, $0.02 cached, writes at 1.25× input, same long-context
 *   rule and window). gpt-6-astra, gpt-6-sol, gpt-6-luna, gpt-6.1-sol,
 *   gpt-6.1-terra, gpt-5.6-sol, gpt-5.6-terra and gpt-5.5: dated
 *   third-party release notes and gateway pages quoting the official
 *   pricing page, NOT the official page itself; their windows are the
 *   family's 1,050,000 / 128,000 (official for 6.2-sol and 5.6-luna).
 *   Tools on Chat Completions go only with effort `none` on GPT-5.6 and
 *   GPT-6 (a model page plus the provider's 400s); gpt-5.2/5.4/5.5 and
 *   5.4-mini/5.4-nano refuse tools together with an effort (the
 *   provider's 400s, as public reports show them); 6.1-sol and
 *   6.2-sol refuse `none`, so their tool calls need the Responses API.
 *   The GPT-5.4 and older rows are as before (gpt-5.4-mini pinned by an
 *   upstream fixture, the rest from reproductions of the pricing page,
 *   NOT the official page), still in the SDK's `ChatModel` union; the
 *   GPT-5.4 window is 1,050,000 with its 272K long-context rates (NOT
 *   re-verified). The `-pro` models are Responses-only and left out.
 * - DeepSeek (V3.2 behind both ids: $0.28 cache miss, $0.028 cache hit,
 *   $0.42 output, 128K window): a dated third-party table (Dec 2025), NOT
 *   verified against the official page, nor re-checked for December 2026.
 * - Gemini windows, ceilings and thinking levels: the official model
 *   pages for gemini-3.8-flash (1,048,576 / 65,536, levels low / medium /
 *   high, `minimal` refused) and gemini-3.7-flash (deprecated; its own
 *   page: 1,048,576 / 65,536, levels low / medium / high, default medium,
 *   `minimal` refused). 3.7 Flash is its own row, never an alias: a model
 *   id keeps its own thinking levels even while Google routes it to a
 *   newer model; its price is 3.8 Flash's (the model that serves it), NOT
 *   verified on the pricing page. 2.5 Pro / Flash / Flash-Lite 1,048,576 /
 *   65,536 from a stored copy of the API's model list. gemini-3.5-flash,
 *   gemini-3.5-flash-lite and gemini-3.1-pro-preview (1M / 65,536):
 *   third-party model pages, NOT the official ones; their levels (3.1 Pro
 *   and 3.5 Flash low–high, 3.5 Flash-Lite minimal–high) are NOT
 *   verified. Gemini 3 thinking cannot be turned off (effort `off` sends
 *   the lowest level); 2.5 Pro's neither (the 128-token minimum budget).
 *   Temperature is never sent to Gemini 3.x: Google's guides advise
 *   keeping the default there (not a refusal of the API).
 * - Gemini prices: a dated (2026-10-07) third-party transcript of the
 *   official pricing page, NOT the page itself: 3.8 Flash $0.75/$3.75
 *   through 2026-12-31 ($1.50/$7.50 from 2027-01-01, not yet here), 3.5
 *   Flash $1.50/$9, 3.5 Flash-Lite $0.30/$2.50, 3.1 Pro Preview $2/$12 up
 *   to 200K prompt tokens and $4/$18 above, 2.5 Pro $1.25/$10 ($2.50/$15
 *   above 200K), 2.5 Flash $0.30/$2.50, 2.5 Flash-Lite $0.10/$0.40. Cache
 *   reads at a tenth of input: 3.1 Pro ($0.20/$0.40) per a dated
 *   third-party guide; for the other rows the 10% rule is inferred, NOT
 *   verified. Explicit-cache storage is not priced (the adapter never
 *   creates caches; implicit cache hits cost the read rate only).
 *
 * @module
 */
import type { ModelInfo, ModelRates } from "./catalog.ts";

/** USD per million tokens → µ¢ per million tokens. */
function usd(value: number): number {
  return Math.round(value * 1e8);
}

interface Price {
  input: number;
  output: number;
  cached: number;
  write?: number;
  write1h?: number;
}

type Flags = Pick<
  ModelInfo,
  | "rejectsSampling"
  | "thinkingByDefault"
  | "thinkingOff"
  | "adaptiveThinkingOnly"
  | "effortTiers"
  | "chatToolsNeedEffortNone"
  | "needsResponsesApi"
>;

interface Row extends Price, Flags {
  id: string;
  name: string;
  window: number;
  maxOut: number;
  reasoning: boolean;
  /** Long-context rates: above `above` prompt tokens. */
  long?: Price & { above: number };
}

function rates(p: Price): ModelRates {
  return {
    inputPerMtokMicrocents: usd(p.input),
    outputPerMtokMicrocents: usd(p.output),
    cachedInputPerMtokMicrocents: usd(p.cached),
    ...(p.write === undefined
      ? {}
      : { cacheWritePerMtokMicrocents: usd(p.write) }),
    ...(p.write1h === undefined
      ? {}
      : { cacheWrite1hPerMtokMicrocents: usd(p.write1h) }),
  };
}

function rows(provider: string, list: readonly Row[]): ModelInfo[] {
  return list.map((r) => {
    const flags: Flags = {};
    for (const key of FLAG_KEYS) {
      if (r[key] !== undefined) Object.assign(flags, { [key]: r[key] });
    }
    return {
      provider,
      id: r.id,
      displayName: r.name,
      contextWindowTokens: r.window,
      maxOutputTokens: r.maxOut,
      ...rates(r),
      ...(r.long === undefined ? {} : {
        longContext: { aboveInputTokens: r.long.above, ...rates(r.long) },
      }),
      reasoning: r.reasoning,
      ...flags,
    };
  });
}

const FLAG_KEYS: readonly (keyof Flags)[] = [
  "rejectsSampling",
  "thinkingByDefault",
  "thinkingOff",
  "adaptiveThinkingOnly",
  "effortTiers",
  "chatToolsNeedEffortNone",
  "needsResponsesApi",
];

const K200 = 200_000;
const M1 = 1_000_000;
const GPT_WINDOW = 1_050_000;
const K128 = 128_000;
/** Anthropic's cache multipliers: 5-minute write 1.25×, 1-hour 2×. */
function claude(input: number, output: number, cached: number): Price {
  return { input, output, cached, write: input * 1.25, write1h: input * 2 };
}
/** OpenAI's rule above 272K input tokens: 2× input and cache, 1.5× output. */
function gptLong(p: Price): Price & { above: number } {
  return {
    above: 272_000,
    input: p.input * 2,
    output: p.output * 1.5,
    cached: p.cached * 2,
    ...(p.write === undefined ? {} : { write: p.write * 2 }),
  };
}
function gpt(input: number, output: number, cached: number, write?: number) {
  const p: Price = {
    input,
    output,
    cached,
    ...(write === undefined ? {} : { write }),
  };
  return { ...p, long: gptLong(p) };
}

const TIERS_46 = ["low", "medium", "high", "max"] as const;
const TIERS_47 = ["low", "medium", "high", "xhigh", "max"] as const;
/** Claude 4.7 and later: adaptive only, no sampling parameters. */
const CLAUDE_47 = {
  window: M1,
  maxOut: K128,
  reasoning: true,
  adaptiveThinkingOnly: true,
  rejectsSampling: true,
  effortTiers: TIERS_47,
} as const;
/** Claude 5.x: as 4.7, thinking on by default. */
const CLAUDE_5 = { ...CLAUDE_47, thinkingByDefault: true } as const;
/** Thinking always on: `off` becomes the lowest effort. */
const ALWAYS_ON = { ...CLAUDE_5, thinkingOff: "never" } as const;

const GPT_OLD_TIERS = ["none", "low", "medium", "high", "xhigh"] as const;
const GPT_TIERS = ["none", "low", "medium", "high", "xhigh", "max"] as const;
/** GPT-5.6 and GPT-6: tools on Chat Completions only with effort `none`. */
const GPT_NEW = {
  window: GPT_WINDOW,
  maxOut: K128,
  reasoning: true,
  effortTiers: GPT_TIERS,
  chatToolsNeedEffortNone: true,
} as const;
/** GPT-6.1 Sol and later Sols: no `none`, so no tools on Chat Completions. */
const GPT_NO_NONE = {
  ...GPT_NEW,
  effortTiers: ["low", "medium", "high", "xhigh"],
  needsResponsesApi: true,
} as const;
const GPT5_SHAPE = { window: 400_000, maxOut: K128, reasoning: true };
const GPT5 = { input: 1.25, output: 10, cached: 0.125 };
const GPT41 = { window: 1_047_576, maxOut: 32_768, reasoning: false };
const O_SERIES = { window: K200, maxOut: 100_000, reasoning: true };
const DEEPSEEK = { window: 128_000, input: 0.28, output: 0.42, cached: 0.028 };
/** Gemini's window and output ceiling (1,048,576 / 65,536). */
const GEMINI_SHAPE = { window: 1_048_576, maxOut: 65_536, reasoning: true };
/** Gemini 3.x: thinking levels, temperature left at its default. */
const GEMINI_3 = {
  ...GEMINI_SHAPE,
  rejectsSampling: true,
  effortTiers: ["low", "medium", "high"],
} as const;
/** Cache reads at a tenth of the input rate. */
function gemini(input: number, output: number): Price {
  return { input, output, cached: input / 10 };
}

/**
 * Every bundled model, by canonical id.
 */
export const BUILTIN_MODELS: readonly ModelInfo[] = [
  ...rows("anthropic", [
    {
      id: "claude-fable-5-2",
      name: "Claude Fable 5.2",
      ...ALWAYS_ON,
      ...claude(8, 40, 0.2),
    },
    {
      id: "claude-fable-5-1",
      name: "Claude Fable 5.1",
      ...ALWAYS_ON,
      ...claude(10, 50, 0.25),
    },
    {
      id: "claude-fable-5",
      name: "Claude Fable 5",
      ...ALWAYS_ON,
      ...claude(10, 50, 1),
    },
    {
      id: "claude-opus-5-5",
      name: "Claude Opus 5.5",
      ...ALWAYS_ON,
      ...claude(4, 20, 0.2),
    },
    {
      id: "claude-opus-5",
      name: "Claude Opus 5",
      ...CLAUDE_5,
      ...claude(5, 25, 0.5),
    },
    {
      id: "claude-sonnet-5-5",
      name: "Claude Sonnet 5.5",
      ...CLAUDE_5,
      thinkingOff: "between_tools",
      ...claude(2, 10, 0.1),
    },
    {
      id: "claude-sonnet-5",
      name: "Claude Sonnet 5",
      ...CLAUDE_5,
      ...claude(2, 10, 0.2),
    },
    {
      id: "claude-haiku-5-5",
      name: "Claude Haiku 5.5",
      ...CLAUDE_5,
      ...claude(0.1, 0.5, 0.01),
      long: { above: 100_000, ...claude(0.5, 2.5, 0.05) },
    },
    {
      id: "claude-opus-4-8",
      name: "Claude Opus 4.8",
      ...CLAUDE_47,
      ...claude(5, 25, 0.5),
    },
    {
      id: "claude-opus-4-7",
      name: "Claude Opus 4.7",
      ...CLAUDE_47,
      ...claude(5, 25, 0.5),
    },
    {
      id: "claude-opus-4-6",
      name: "Claude Opus 4.6",
      window: M1,
      maxOut: K128,
      reasoning: true,
      effortTiers: TIERS_46,
      ...claude(5, 25, 0.5),
    },
    {
      id: "claude-sonnet-4-6",
      name: "Claude Sonnet 4.6",
      window: M1,
      maxOut: K128,
      reasoning: true,
      effortTiers: TIERS_46,
      ...claude(3, 15, 0.3),
    },
    {
      id: "claude-haiku-4-5",
      name: "Claude Haiku 4.5",
      window: K200,
      maxOut: 64_000,
      reasoning: true,
      ...claude(1, 5, 0.1),
    },
    {
      id: "claude-opus-4-5",
      name: "Claude Opus 4.5",
      window: K200,
      maxOut: 64_000,
      reasoning: true,
      ...claude(5, 25, 0.5),
    },
  ]),
  ...rows("openai", [
    {
      id: "gpt-6.2-sol",
      name: "GPT-6.2 Sol",
      ...GPT_NO_NONE,
      ...gpt(2, 10, 0.1, 2.5),
    },
    {
      id: "gpt-6.1-sol",
      name: "GPT-6.1 Sol",
      ...GPT_NO_NONE,
      ...gpt(2, 10, 0.1, 2.5),
    },
    {
      id: "gpt-6.1-terra",
      name: "GPT-6.1 Terra",
      ...GPT_NEW,
      ...gpt(1, 5, 0.05, 1.25),
    },
    {
      id: "gpt-6-astra",
      name: "GPT-6 Astra",
      ...GPT_NEW,
      ...gpt(10, 50, 1, 12.5),
    },
    {
      id: "gpt-6-sol",
      name: "GPT-6 Sol",
      ...GPT_NEW,
      ...gpt(2, 10, 0.2, 2.5),
    },
    {
      id: "gpt-6-luna",
      name: "GPT-6 Luna",
      ...GPT_NEW,
      ...gpt(0.1, 0.5, 0.01, 0.125),
    },
    {
      id: "gpt-5.6-sol",
      name: "GPT-5.6 Sol",
      ...GPT_NEW,
      ...gpt(4, 20, 0.4, 5),
    },
    {
      id: "gpt-5.6-terra",
      name: "GPT-5.6 Terra",
      ...GPT_NEW,
      ...gpt(2, 12, 0.2, 2.5),
    },
    {
      id: "gpt-5.6-luna",
      name: "GPT-5.6 Luna",
      ...GPT_NEW,
      ...gpt(0.2, 1.2, 0.02, 0.25),
    },
    {
      id: "gpt-5.5",
      name: "GPT-5.5",
      window: GPT_WINDOW,
      maxOut: K128,
      reasoning: true,
      effortTiers: GPT_OLD_TIERS,
      chatToolsNeedEffortNone: true,
      ...gpt(5, 30, 0.5),
    },
    {
      id: "gpt-5.4",
      name: "GPT-5.4",
      window: GPT_WINDOW,
      maxOut: K128,
      reasoning: true,
      effortTiers: GPT_OLD_TIERS,
      chatToolsNeedEffortNone: true,
      ...gpt(2.5, 15, 0.25),
    },
    {
      id: "gpt-5.4-mini",
      name: "GPT-5.4 mini",
      ...GPT5_SHAPE,
      chatToolsNeedEffortNone: true,
      input: 0.75,
      output: 4.5,
      cached: 0.075,
    },
    {
      id: "gpt-5.4-nano",
      name: "GPT-5.4 nano",
      ...GPT5_SHAPE,
      chatToolsNeedEffortNone: true,
      input: 0.2,
      output: 1.25,
      cached: 0.02,
    },
    {
      id: "gpt-5.2",
      name: "GPT-5.2",
      ...GPT5_SHAPE,
      effortTiers: GPT_OLD_TIERS,
      chatToolsNeedEffortNone: true,
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
      window: K128,
      maxOut: 16_384,
      input: 2.5,
      output: 10,
      cached: 1.25,
      reasoning: false,
    },
    {
      id: "gpt-4o-mini",
      name: "GPT-4o mini",
      window: K128,
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
  ...rows("gemini", [
    {
      id: "gemini-3.8-flash",
      name: "Gemini 3.8 Flash",
      ...GEMINI_3,
      ...gemini(0.75, 3.75),
    },
    {
      id: "gemini-3.7-flash",
      name: "Gemini 3.7 Flash",
      ...GEMINI_3,
      ...gemini(0.75, 3.75),
    },
    {
      id: "gemini-3.5-flash",
      name: "Gemini 3.5 Flash",
      ...GEMINI_3,
      ...gemini(1.5, 9),
    },
    {
      id: "gemini-3.5-flash-lite",
      name: "Gemini 3.5 Flash-Lite",
      ...GEMINI_3,
      effortTiers: ["minimal", "low", "medium", "high"],
      ...gemini(0.3, 2.5),
    },
    {
      id: "gemini-3.1-pro-preview",
      name: "Gemini 3.1 Pro Preview",
      ...GEMINI_3,
      ...gemini(2, 12),
      long: { above: 200_000, ...gemini(4, 18) },
    },
    {
      id: "gemini-2.5-pro",
      name: "Gemini 2.5 Pro",
      ...GEMINI_SHAPE,
      thinkingOff: "never",
      ...gemini(1.25, 10),
      long: { above: 200_000, ...gemini(2.5, 15) },
    },
    {
      id: "gemini-2.5-flash",
      name: "Gemini 2.5 Flash",
      ...GEMINI_SHAPE,
      ...gemini(0.3, 2.5),
    },
    {
      id: "gemini-2.5-flash-lite",
      name: "Gemini 2.5 Flash-Lite",
      ...GEMINI_SHAPE,
      ...gemini(0.1, 0.4),
    },
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
 * OpenAI's reasoning families (GPT-5 and later, the o-series), for an id
 * no row lists; their search and audio variants are Chat Completions
 * models.
 */
const OPENAI_REASONING_IDS =
  /^(?:gpt-(?:[5-9]|[1-9]\d)|o\d)(?!.*(?:search|audio))/;

/**
 * The API the official OpenAI endpoint serves a model through: every
 * reasoning model goes to the Responses API (Chat Completions refuses
 * their function tools beside a reasoning effort, and some apply an
 * effort by default), the others stay on Chat Completions. A listed
 * model follows its row's `reasoning` flag; an id no row describes
 * follows its family.
 *
 * @param model The model id.
 * @param info The model's catalog entry (`undefined` = unknown).
 * @returns `responses` or `chat`.
 */
export function openAiRoute(
  model: string,
  info: ModelInfo | undefined,
): "responses" | "chat" {
  const reasons = info?.reasoning ??
    OPENAI_REASONING_IDS.test(model.toLowerCase());
  return reasons ? "responses" : "chat";
}

/**
 * Dated snapshot and legacy ids that resolve to a bundled canonical id.
 */
export const MODEL_ALIASES: Readonly<Record<string, string>> = {
  "claude-opus-4-5-20251101": "claude-opus-4-5",
  "claude-haiku-4-5-20251001": "claude-haiku-4-5",
  "gpt-5.6": "gpt-5.6-sol",
  "gpt-5.4-mini-2026-03-17": "gpt-5.4-mini",
  "gpt-5.4-nano-2026-03-17": "gpt-5.4-nano",
  "gpt-5.2-2025-12-11": "gpt-5.2",
  "gpt-5.1-2025-11-13": "gpt-5.1",
  "gpt-4o-2024-08-06": "gpt-4o",
  "gpt-4o-2024-11-20": "gpt-4o",
  "gpt-4o-mini-2024-07-18": "gpt-4o-mini",
  "gpt-4.1-2025-04-14": "gpt-4.1",
  "gpt-5-2025-08-07": "gpt-5",
  "o3-2025-04-16": "o3",
  "o4-mini-2025-04-16": "o4-mini",
};
