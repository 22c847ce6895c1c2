/**
 * Test helper: single-point mutations of a JSON-like value, for holding a
 * zod-free check equal to its zod schema. At every path (objects and
 * arrays, to `depth`) it replaces the value with each odd value, deletes
 * the key, and adds unknown keys (incl. an own `__proto__`).
 *
 * @module
 */
import assert from "node:assert/strict";

/** Values every field is tried with. */
export const ODD_VALUES: readonly unknown[] = [
  undefined,
  null,
  "",
  "x",
  "a".repeat(300),
  "2026-01-01T00:00:00Z",
  "session-tool:1:0",
  "session-tool:0:1",
  "{{ secrets.KEY }}",
  "Bad_Id",
  "a b",
  "a\u0000b",
  "-x",
  "GET",
  "a-",
  "image/png",
  "audio/ogg",
  "text/plain",
  `media://sha256-${"b".repeat(64)}`,
  0,
  -0,
  -1,
  1,
  2,
  2.5,
  3,
  100,
  599,
  600,
  Number.MAX_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER + 2,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  true,
  false,
  [],
  [""],
  ["x"],
  {},
  { type: "text", text: "t" },
  new Date(0),
];

function clone<T>(v: T): T {
  return structuredClone(v);
}

function withOwnProto(o: Record<string, unknown>): Record<string, unknown> {
  return { ...o, ...JSON.parse('{"__proto__": "p"}') };
}

/**
 * Every single-point mutation of `base` (plus `base` itself).
 *
 * @example
 * ```ts
 * const all = mutations({ a: 1 }, 2);
 * ```
 */
export function mutations(base: unknown, depth = 4): unknown[] {
  const out: unknown[] = [clone(base)];
  if (depth === 0) return out;
  if (Array.isArray(base)) {
    out.push([]);
    base.forEach((item, i) => {
      for (const m of [...ODD_VALUES, ...mutations(item, depth - 1)]) {
        const copy = clone(base) as unknown[];
        copy[i] = m;
        out.push(copy);
      }
      const dropped = clone(base) as unknown[];
      dropped.splice(i, 1);
      out.push(dropped);
      const holed = clone(base) as unknown[];
      delete holed[i]; // a sparse array (only a library caller can pass one)
      out.push(holed);
    });
    out.push([...clone(base), ...clone(base)]);
    return out;
  }
  if (typeof base === "object" && base !== null && !(base instanceof Date)) {
    const o = base as Record<string, unknown>;
    out.push({ ...clone(o), extra: 1 }, withOwnProto(clone(o)));
    for (const key of Object.keys(o)) {
      const dropped = clone(o);
      delete dropped[key];
      out.push(dropped);
      for (const m of [...ODD_VALUES, ...mutations(o[key], depth - 1)]) {
        out.push({ ...clone(o), [key]: m });
      }
    }
  }
  return out;
}

/**
 * Asserts that `check` accepts exactly what `schema` accepts over every
 * mutation of every base, and that both outcomes occurred at least
 * `min.accepted` / `min.refused` times.
 *
 * @example
 * ```ts
 * assertSameAcceptance([{ a: 1 }], (v) => true, { safeParse: () => ({ success: true }) }, { accepted: 1, refused: 0 });
 * ```
 */
export function assertSameAcceptance(
  bases: readonly unknown[],
  check: (v: unknown) => boolean,
  schema: { safeParse(v: unknown): { success: boolean } },
  min: { accepted: number; refused: number },
): void {
  let accepted = 0;
  let refused = 0;
  for (const base of bases) {
    for (const v of mutations(base)) {
      const want = schema.safeParse(v).success;
      assert.equal(check(v), want, JSON.stringify(v));
      if (want) accepted++;
      else refused++;
    }
  }
  assert.ok(
    accepted >= min.accepted && refused >= min.refused,
    `accepted ${accepted}, refused ${refused}`,
  );
}
