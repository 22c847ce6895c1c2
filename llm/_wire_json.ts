/**
 * Narrowing helpers for provider JSON (`unknown` in, typed fields out), so
 * adapters read wire objects without `any` and without throwing.
 *
 * @module
 */

/**
 * A parsed JSON object.
 */
export type JsonObject = Record<string, unknown>;

/**
 * Whether a value is a plain JSON object (not null, not an array).
 *
 * @param value Any value.
 * @returns `true` for objects.
 */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Parses JSON text, `undefined` when it is not valid JSON.
 *
 * @param text JSON text.
 * @returns The value, or `undefined`.
 */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * A field of an object, when it is an object.
 *
 * @param o The object (or anything).
 * @param key The field.
 * @returns The nested object, or `undefined`.
 */
export function objectField(o: unknown, key: string): JsonObject | undefined {
  if (!isObject(o)) return undefined;
  const v = o[key];
  return isObject(v) ? v : undefined;
}

/**
 * A field of an object, when it is a string.
 *
 * @param o The object (or anything).
 * @param key The field.
 * @returns The string, or `undefined`.
 */
export function stringField(o: unknown, key: string): string | undefined {
  if (!isObject(o)) return undefined;
  const v = o[key];
  return typeof v === "string" ? v : undefined;
}

/**
 * A field of an object, when it is a non-negative safe integer (token
 * counts).
 *
 * @param o The object (or anything).
 * @param key The field.
 * @returns The count, or `undefined`.
 */
export function countField(o: unknown, key: string): number | undefined {
  if (!isObject(o)) return undefined;
  const v = o[key];
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 0
    ? v
    : undefined;
}
