/**
 * Private: the small predicates the zod-free checks share
 * (`*_check.ts`, `*_quick.ts`), each matching how zod 4 sees a value:
 * objects are non-null, non-array objects; a strict object's keys are
 * those `for…in` visits (inherited enumerable ones too); arrays are
 * walked by index, so a hole is `undefined` and fails.
 *
 * @module
 */

/**
 * A decoded JSON-like object.
 */
export type Json = Record<string, unknown>;

/**
 * A non-null, non-array object (zod's object check).
 *
 * @param v Any value.
 * @returns Whether `v` is such an object.
 */
export function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Every key `for…in` visits is allowed (a strict object's rule).
 *
 * @param o The object.
 * @param allowed The known keys.
 * @returns Whether `o` has no other key.
 */
export function onlyKeys(o: Json, allowed: readonly string[]): boolean {
  for (const k in o) if (!allowed.includes(k)) return false;
  return true;
}

/**
 * An absent key, or a present one whose value passes (`exactOptional`:
 * a present `undefined` fails unless `test` accepts it).
 *
 * @param o The object.
 * @param key The key.
 * @param test The value's check.
 * @returns Whether the key is absent or valid.
 */
export function optional(
  o: Json,
  key: string,
  test: (v: unknown) => boolean,
): boolean {
  return !(key in o) || test(o[key]);
}

/**
 * Every element passes, walked by index (a hole fails).
 *
 * @param a Any value.
 * @param test The element check.
 * @returns Whether `a` is an array of valid elements.
 */
export function everyItem(
  a: unknown,
  test: (v: unknown) => boolean,
): a is unknown[] {
  if (!Array.isArray(a)) return false;
  for (let i = 0; i < a.length; i++) if (!test(a[i])) return false;
  return true;
}

/**
 * A string.
 *
 * @param v Any value.
 * @returns Whether `v` is a string.
 */
export function isString(v: unknown): v is string {
  return typeof v === "string";
}

/**
 * A non-empty string (`z.string().min(1)`).
 *
 * @param v Any value.
 * @returns Whether `v` is a non-empty string.
 */
export function isNonEmpty(v: unknown): v is string {
  return typeof v === "string" && v.length > 0;
}

/**
 * A boolean.
 *
 * @param v Any value.
 * @returns Whether `v` is `true` or `false`.
 */
export function isBool(v: unknown): v is boolean {
  return typeof v === "boolean";
}

/**
 * A safe integer ≥ 0 (`z.number().int().min(0)`).
 *
 * @param v Any value.
 * @returns Whether `v` is a count.
 */
export function isCount(v: unknown): v is number {
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
}

/**
 * A safe integer ≥ 1 (`z.number().int().positive()`).
 *
 * @param v Any value.
 * @returns Whether `v` is a positive integer.
 */
export function isPositiveInt(v: unknown): v is number {
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 1;
}

/**
 * zod's `isPlainObject` (what `z.record` accepts): an object whose
 * constructor looks like `Object`'s, or that has none. Kept here only for
 * the remaining zod-free readers outside schema/; it goes with them.
 *
 * @param v Any value.
 * @returns Whether zod would take `v` as a record.
 */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (!isObject(v)) return false;
  const ctor = (v as { constructor?: unknown }).constructor;
  if (ctor === undefined || typeof ctor !== "function") return true;
  const proto: unknown = ctor.prototype;
  return isObject(proto) && Object.hasOwn(proto, "isPrototypeOf");
}
