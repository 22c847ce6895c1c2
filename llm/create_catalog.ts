/**
 * The model catalog: the bundled table plus a user overlay that only adds
 * unknown ids.
 *
 * @module
 */
import type { ModelCatalog, ModelInfo } from "./catalog.ts";
import { BUILTIN_MODELS, MODEL_ALIASES } from "./catalog_data.ts";

/**
 * Creates the model catalog: the bundled table (with dated-snapshot
 * aliases), then a user overlay that may only add unknown ids — a shipped
 * id (or alias) is never re-priced. Lookups return copies.
 *
 * @param overlay User-configured models (e.g. `[[providers]]` prices).
 * @returns The catalog.
 *
 * @example Look up, alias and overlay
 * ```ts
 * import { createCatalog } from "@relavium/session/llm";
 * import assert from "node:assert/strict";
 * const local = { provider: "ollama", id: "llama3", contextWindowTokens: 8192, maxOutputTokens: 2048,
 *   inputPerMtokMicrocents: 0, outputPerMtokMicrocents: 0, cachedInputPerMtokMicrocents: 0 };
 * const fake = { ...local, provider: "openai", id: "gpt-4o", inputPerMtokMicrocents: 1 };
 * const c = createCatalog([local, fake]);
 * assert.equal(c.lookup("gpt-5.4-mini")?.outputPerMtokMicrocents, 450_000_000);
 * assert.equal(c.lookup("claude-haiku-4-5-20251001")?.id, "claude-haiku-4-5");
 * assert.equal(c.lookup("llama3")?.provider, "ollama");
 * assert.equal(c.lookup("gpt-4o")?.inputPerMtokMicrocents, 250_000_000);
 * assert.equal(c.lookup("nope"), undefined);
 * ```
 */
export function createCatalog(
  overlay: readonly ModelInfo[] = [],
): ModelCatalog & {
  /** Every model: bundled ones first, then overlay additions. */
  list(): ModelInfo[];
} {
  const byId = new Map<string, ModelInfo>();
  for (const m of BUILTIN_MODELS) byId.set(m.id, m);
  const shipped = (id: string): boolean =>
    byId.has(id) || Object.hasOwn(MODEL_ALIASES, id);
  const added: ModelInfo[] = [];
  for (const m of overlay) {
    if (shipped(m.id)) continue;
    byId.set(m.id, m);
    added.push(m);
  }
  return {
    lookup(model: string): ModelInfo | undefined {
      const id = Object.hasOwn(MODEL_ALIASES, model)
        ? MODEL_ALIASES[model]
        : model;
      const info = id === undefined ? undefined : byId.get(id);
      return info === undefined ? undefined : { ...info };
    },
    list(): ModelInfo[] {
      return [...BUILTIN_MODELS, ...added].map((m) => ({ ...m }));
    },
  };
}

/** A catalog that can also list its models ({@linkcode createCatalog}'s). */
export type ListableCatalog = ReturnType<typeof createCatalog>;
