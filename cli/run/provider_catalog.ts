/**
 * The session's model catalog: the bundled models plus the prices of
 * `[[providers]]` entries.
 *
 * @module
 */
import type { ModelInfo } from "../../llm/catalog.ts";
import {
  createCatalog,
  type ListableCatalog,
} from "../../llm/create_catalog.ts";
import type { ResolvedProvider } from "../config/resolve.ts";

/**
 * The session catalog: the bundled models plus the `[[providers]]` prices
 * (a model priced by two entries takes the later one). The bundled
 * catalog is never re-priced: such a price is reported.
 *
 * @param providers The resolved providers.
 * @returns The catalog and one notice per ignored price.
 */
export function providerCatalog(
  providers: readonly ResolvedProvider[],
): { catalog: ListableCatalog; notices: string[] } {
  const bundled = createCatalog();
  const byModel = new Map<string, ModelInfo>();
  const notices: string[] = [];
  for (const p of providers) {
    for (const [model, price] of Object.entries(p.prices ?? {})) {
      if (bundled.lookup(model) !== undefined) {
        notices.push(
          `[[providers]] ${p.id}: the price of ${model} is ignored (the bundled catalog prices it)`,
        );
        continue;
      }
      byModel.set(model, {
        provider: p.id,
        id: model,
        // Unknown: a custom endpoint's window is never authoritative.
        contextWindowTokens: 0,
        maxOutputTokens: 0,
        inputPerMtokMicrocents: price.input,
        outputPerMtokMicrocents: price.output,
        cachedInputPerMtokMicrocents: price.cache_read ?? 0,
        ...(price.cache_write === undefined
          ? {}
          : { cacheWritePerMtokMicrocents: price.cache_write }),
      });
    }
  }
  return { catalog: createCatalog([...byModel.values()]), notices };
}
