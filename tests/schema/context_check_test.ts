import assert from "node:assert/strict";
import { isSessionContext } from "../../schema/context_check.ts";
import { sessionContextSchema } from "../../schema/context.ts";
import { assertSameAcceptance } from "./_mutations.ts";

const BASES: unknown[] = [
  { workingDir: "/w", fsScopeTier: "sandboxed" },
  {
    workingDir: "/w",
    activeFile: "a.ts",
    selection: { file: "a.ts", startLine: 2, endLine: 2 },
    gitRef: "main",
    fsScopeTier: "project",
    variables: { area: "tests", empty: "" },
  },
  { workingDir: "/", fsScopeTier: "full", variables: {} },
];

Deno.test("isSessionContext() accepts exactly what sessionContextSchema accepts", () => {
  assertSameAcceptance(BASES, isSessionContext, sessionContextSchema, {
    accepted: 20,
    refused: 200,
  });
});

Deno.test("isSessionContext() on odd record values agrees with zod", () => {
  const odd: unknown[] = [
    { workingDir: "/w", fsScopeTier: "full", variables: new Map() },
    { workingDir: "/w", fsScopeTier: "full", variables: Object.create(null) },
    {
      workingDir: "/w",
      fsScopeTier: "full",
      variables: JSON.parse('{"__proto__": 1}'),
    },
    {
      workingDir: "/w",
      fsScopeTier: "full",
      selection: { file: "a", startLine: 3, endLine: 2 },
    },
  ];
  for (const c of odd) {
    assert.equal(
      isSessionContext(c),
      sessionContextSchema.safeParse(c).success,
    );
  }
});
