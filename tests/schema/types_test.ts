/**
 * Each written-out type beside its schema is held equal to what zod infers
 * by a `Holds<Same<…>>` alias in its own module (schema/type_equal.ts), so
 * `deno check` of the package is the compile-time test. These tests pin
 * what `Same` tells apart, and that a wrong pair fails the type check.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import type { Flat, Same } from "../../schema/type_equal.ts";
import type {
  parseSessionEvent,
  SessionEvent,
  SessionEventDraft,
} from "../../schema/event.ts";

Deno.test("Same tells apart optional, readonly, wider and narrower types; Flat equates an intersection with its object", () => {
  const optional: Same<{ a?: number }, { a: number }> = false;
  const readonly: Same<{ readonly a: number }, { a: number }> = false;
  const wider: Same<{ a: number | string }, { a: number }> = false;
  const extraKey: Same<{ a: number; b?: string }, { a: number }> = false;
  const same: Same<{ a: number; b: string }, { b: string; a: number }> = true;
  const flat: Same<Flat<{ a: 1 } & { b: 2 }>, { a: 1; b: 2 }> = true;
  assert.deepEqual([optional, readonly, wider, extraKey, same, flat], [
    false,
    false,
    false,
    false,
    true,
    true,
  ]);
});

Deno.test("a schema whose inference drifts from its written-out type fails deno check", async () => {
  const root = fileURLToPath(new URL("../../", import.meta.url));
  const file = `${root}tests/schema/_drift_${crypto.randomUUID()}.ts`;
  await Deno.writeTextFile(
    file,
    `import { z } from "zod";
import type { Holds, Same } from "../../schema/type_equal.ts";
interface Written { id: string; note?: string }
const inferred = z.strictObject({ id: z.string(), note: z.string() });
export const schema: z.ZodType<Written> = inferred;
type _Check = Holds<Same<z.infer<typeof inferred>, Written>>;
`,
  );
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["check", "--quiet", file],
      cwd: root,
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).output();
    assert.equal(out.code, 1, "the drifted pair must not type-check");
    assert.match(
      new TextDecoder().decode(out.stderr),
      /does not satisfy the constraint 'true'/,
    );
  } finally {
    await Deno.remove(file);
  }
});

type ParsedEvent = Extract<
  ReturnType<typeof parseSessionEvent>,
  { ok: true }
>["value"];
type Boundary<E> = Extract<
  E,
  { type: "session:compacted" | "session:trimmed" }
>;

Deno.test("producers always set keptTurnCount; only the parser tolerates its absence (older events)", () => {
  const checks: [
    Same<Boundary<SessionEventDraft>["keptTurnCount"], number>,
    Same<Boundary<SessionEvent>["keptTurnCount"], number>,
    Same<Boundary<ParsedEvent>["keptTurnCount"], number | undefined>,
  ] = [true, true, true];
  assert.ok(checks.every((c) => c));
});
