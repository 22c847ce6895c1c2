/**
 * A turn policy's instruction (plan mode's) joins the system prompt of
 * the turns run under it, and only those.
 */
import assert from "node:assert/strict";
import { createModePolicy, PLAN_INSTRUCTION } from "../../tools/modes.ts";
import { harness, reply } from "./_harness.ts";

Deno.test("plan mode's instruction is in the system prompt of its turns only", async () => {
  const h = harness({ script: [reply("a"), reply("b")] });
  const modes = createModePolicy({ mode: "plan", interactive: false });
  h.session.setTurnPolicy(modes.policy);
  await h.session.sendMessage("one");
  modes.mode = "ask";
  h.session.setTurnPolicy(modes.policy);
  await h.session.sendMessage("two");
  const systems = h.provider.requests.map((r) => r.system);
  assert.deepEqual(systems, [`You help.\n\n${PLAN_INSTRUCTION}`, "You help."]);
});
