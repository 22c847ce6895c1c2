/**
 * Reasoning effort → OpenAI `reasoning_effort` or DeepSeek `thinking`.
 *
 * @module
 */
import type { LlmRequest } from "../provider.ts";
import type { OpenAiDialect } from "./types.ts";

/**
 * The OpenAI `reasoning_effort` value of a tier for a model: `off` → the
 * lowest value the family accepts (`none` from GPT-5.1, `minimal` on GPT-5,
 * `low` elsewhere); `max` → the highest (`xhigh` from GPT-5.2, else
 * `high`); `low`/`medium`/`high` unchanged.
 *
 * @param model The model id.
 * @param effort The tier.
 * @returns The wire value.
 */
export function openAiEffort(
  model: string,
  effort: Exclude<LlmRequest["reasoningEffort"], undefined>,
): string {
  if (effort !== "off" && effort !== "max") return effort;
  const gpt5 = /^gpt-5(?:\.(\d+))?/.exec(model);
  const minor = gpt5 === null ? -1 : Number(gpt5[1] ?? "0");
  if (effort === "off") {
    if (minor >= 1) return "none";
    return minor === 0 ? "minimal" : "low";
  }
  return minor >= 2 ? "xhigh" : "high";
}

/**
 * The reasoning fields of a request body: none without an effort or for a
 * model the catalog says does not reason; OpenAI → `reasoning_effort`;
 * DeepSeek → `thinking: {type: "enabled" | "disabled"}` (on/off only).
 *
 * @param dialect The server's dialect.
 * @param model The model id.
 * @param effort The request's tier.
 * @param reasons The catalog's reasoning flag (`undefined` = unknown).
 * @returns Fields to merge into the body.
 */
export function reasoningFields(
  dialect: OpenAiDialect,
  model: string,
  effort: LlmRequest["reasoningEffort"],
  reasons: boolean | undefined,
): Record<string, unknown> {
  if (effort === undefined || reasons === false) return {};
  if (dialect === "deepseek") {
    return { thinking: { type: effort === "off" ? "disabled" : "enabled" } };
  }
  return { reasoning_effort: openAiEffort(model, effort) };
}
