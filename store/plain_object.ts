/**
 * Plain objects for the per-row outputs of a resume.
 *
 * V8 allocates the objects of a literal (`{ … }`, `[ … ]`) straight in the
 * old generation once most of that literal's objects survive, and all of a
 * resume's messages do. Old-generation messages then keep the young parts
 * and strings of every later load alive through each scavenge until a full
 * collection, so a repeated resume copies several loads' worth of objects.
 * Objects built by `Object.create` are not tracked that way. (Resume bench,
 * BENCHMARKS.md "## Store": ~35 → ~20 ms per load of 10,000 rows.)
 *
 * @module
 */

/**
 * An empty object with `Object.prototype`, like `{}`, made without a
 * literal allocation site (see the module doc).
 *
 * @returns A fresh empty object.
 */
export function plainObject(): Record<string, unknown> {
  return Object.create(Object.prototype);
}
