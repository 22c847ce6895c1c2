/** The plain_object.ts internals, case by case. */
import assert from "node:assert/strict";
import { plainObject } from "../../store/plain_object.ts";

Deno.test("plainObject() equals a literal once filled", () => {
  const o = plainObject();
  o["type"] = "text";
  o["text"] = "hi";
  assert.deepStrictEqual(o, { type: "text", text: "hi" });
  assert.deepEqual(Object.keys(o), ["type", "text"]);
});
