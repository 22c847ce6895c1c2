/**
 * Reasoning effort → OpenAI `reasoning_effort` or DeepSeek `thinking`,
 * from the model's catalog flags.
 *
 * @module
 */
import type { ModelInfo } from "../catalog.ts";
import type { LlmRequest } from "../provider.ts";
import type { OpenAiDialect } from "./types.ts";

/**
 * The OpenAI `reasoning_effort` value of a tier for a model. With the
 * model's listed tiers: `off` → `none`, else `minimal`, else its lowest;
 * `max` → `max`, else `xhigh`, else `high`. Without them, by family:
 * `off` → `none` from GPT-5.1, `minimal` on GPT-5, `low` elsewhere; `max`
 * → `xhigh` from GPT-5.2, else `high`. `low`/`medium`/`high` unchanged.
 *
 * @param model The model id.
 * @param effort The tier.
 * @param tiers The model's accepted values (catalog), when known.
 * @returns The wire value.
 */
export function openAiEffort(
  model: string,
  effort: Exclude<LlmRequest["reasoningEffort"], undefined>,
  tiers?: readonly string[],
): string {
  if (effort !== "off" && effort !== "max") return effort;
  if (tiers !== undefined && tiers.length > 0) {
    const pick = effort === "off"
      ? ["none", "minimal", "low"]
      : ["max", "xhigh", "high"];
    return pick.find((t) => tiers.includes(t)) ??
      (effort === "off" ? tiers[0] : tiers[tiers.length - 1]) ?? "medium";
  }
  const gpt5 = /^gpt-5(?:\.(\d+))?/.exec(model);
  const minor = gpt5 === null ? -1 : Number(gpt5[1] ?? "0");
  if (effort === "off") {
    if (minor >= 1) return "none";
    return minor === 0 ? "minimal" : "low";
  }
  return minor >= 2 ? "xhigh" : "high";
}

/**
 * What a request's reasoning settings mean on Chat Completions.
 */
export type ChatReasoning =
  | {
    kind: "fields";
    /** Fields to merge into the body. */
    fields: Record<string, unknown>;
    /** Whether `temperature` may go with them. */
    sampling: boolean;
    /**
     * The effort asked for (as the wire spells it) that these fields do
     * not carry: the endpoint took `none` in its place.
     */
    dropped?: string;
  }
  | {
    kind: "refused";
    /** Why the request cannot be sent. */
    message: string;
  };

/**
 * The reasoning fields of a Chat Completions body, never a combination
 * the model's catalog flags forbid:
 * - a model the catalog says does not reason: none (sampling allowed);
 * - DeepSeek: `thinking: {type: "enabled" | "disabled"}` (on/off only);
 * - OpenAI: `reasoning_effort` by {@linkcode openAiEffort};
 * - with tools, a model that takes tools only with effort `none` gets
 *   `none` whatever was asked (the asked-for effort is reported as
 *   `dropped`, for the one notice a host prints; the official OpenAI
 *   endpoint never gets here, its reasoning models go to the Responses
 *   API), and a model that refuses `none` there too is refused locally:
 *   it needs the Responses API.
 * `temperature` may go only with effort `none` (or thinking disabled), or
 * without an effort to a model the catalog does not list as reasoning.
 *
 * @param dialect The server's dialect.
 * @param req The request (model, effort, tools).
 * @param info The model's catalog entry (`undefined` = unknown).
 * @returns The fields, or a refusal.
 */
export function chatReasoning(
  dialect: OpenAiDialect,
  req: Pick<LlmRequest, "model" | "reasoningEffort" | "tools">,
  info: ModelInfo | undefined,
): ChatReasoning {
  const effort = req.reasoningEffort;
  const tools = (req.tools ?? []).length > 0;
  if (info?.reasoning === false) {
    return { kind: "fields", fields: {}, sampling: true };
  }
  if (tools && info?.needsResponsesApi === true) {
    return {
      kind: "refused",
      message:
        `Request refused: ${req.model} takes tool calls only through the Responses API, which this Chat Completions endpoint does not speak; declare it with kind = "openai-responses"`,
    };
  }
  if (dialect === "deepseek") {
    if (effort === undefined) {
      return { kind: "fields", fields: {}, sampling: info?.reasoning !== true };
    }
    const type = effort === "off" ? "disabled" : "enabled";
    return {
      kind: "fields",
      fields: { thinking: { type } },
      sampling: type === "disabled",
    };
  }
  if (tools && info?.chatToolsNeedEffortNone === true) {
    const asked = effort === undefined
      ? undefined
      : openAiEffort(req.model, effort, info.effortTiers);
    return {
      kind: "fields",
      fields: { reasoning_effort: "none" },
      sampling: info.rejectsSampling !== true,
      ...(asked === undefined || asked === "none" ? {} : { dropped: asked }),
    };
  }
  if (effort === undefined) {
    // A reasoning model reasons at its default effort, which may not be
    // `none`: no sampling parameter then.
    return {
      kind: "fields",
      fields: {},
      sampling: info?.reasoning !== true,
    };
  }
  const wire = openAiEffort(req.model, effort, info?.effortTiers);
  return {
    kind: "fields",
    fields: { reasoning_effort: wire },
    sampling: wire === "none" && info?.rejectsSampling !== true,
  };
}
