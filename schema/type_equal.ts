/**
 * Compile-time equality of two types: `Same<A, B>` is `true` only when
 * each is assignable to the other exactly (optional keys, readonly and
 * unions included), and `Holds<true>` is the only instance. A written-out
 * type next to its schema is held to what zod infers with
 * `type _Check = Holds<Same<z.infer<typeof inferred>, Written>>`, so a change
 * to either side fails the type check.
 *
 * @module
 */

/** `true` exactly when `A` and `B` are the same type. */
export type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends
  (<T>() => T extends B ? 1 : 2) ? true
  : false;

/** Accepts only `true`: a `Same` that is `false` fails the type check. */
export type Holds<T extends true> = T;

/**
 * Each member of a union written as one object type (an intersection such
 * as `Draft & Envelope` becomes the object zod infers), for `Same`.
 */
export type Flat<T> = T extends unknown ? { [K in keyof T]: T[K] } : never;
