/**
 * The approval prompt on a pseudo-terminal (mode `ask`): a `write_file`
 * over an existing file asks on its own line with the canonical target
 * (resolved, relative to its real root) and "overwrites N bytes", re-asks
 * on an answer that is not one, and runs only after `y`; a declined call
 * leaves the file alone; accept-edits and auto write unasked, plan not at all.
 */
import assert from "node:assert/strict";
import { spawnPty } from "../_pty.ts";
import { chatProvider, chatSetup } from "../_pty_chat.ts";
import { tempDir, write } from "../_helpers.ts";
import { within } from "../../llm/adapters/_server.ts";

/**
 * A chat in `mode` on an agent with `write_file`, over a `notes.txt` that
 * holds "old": the model asks to rewrite it, then answers `after`. The
 * request is already typed when it returns.
 */
async function writeChat(after: string, mode = "ask") {
  const tmp = await tempDir();
  const dir = tmp.path;
  const provider = chatProvider([WRITE, { deltas: [after] }]);
  const { env } = await chatSetup(dir, `${dir}/home`, provider);
  await write(`${dir}/notes.txt`, "old\n");
  await write(
    `${dir}/w.agent.yaml`,
    "id: w\nname: W\nmodel: qwen2.5:7b\nprovider: fake-openai\nsystem_prompt: Be terse.\ntools:\n  - write_file\n",
  );
  const chat = spawnPty(["chat", "--agent", "w.agent.yaml", "--mode", mode], {
    cwd: dir,
    env,
  });
  await chat.waitFor(mode === "ask" ? "> " : `${mode} > `);
  await chat.type("update the notes\r");
  return {
    dir,
    provider,
    chat,
    /** Ends the chat, then the provider, then removes the dir. */
    async [Symbol.asyncDispose](): Promise<void> {
      await chat[Symbol.asyncDispose]();
      await provider[Symbol.asyncDispose]();
      await tmp[Symbol.asyncDispose]();
    },
  };
}

const WRITE = {
  deltas: ["I will write it."],
  toolCall: {
    name: "write_file",
    args: { path: "notes.txt", content: "new text\n" },
  },
};

Deno.test("chat on a terminal: the approval names the resolved path and the overwrite, re-asks on a non-answer, runs on y", async () => {
  await using rig = await writeChat("Done.");
  const { dir, provider, chat } = rig;
  let at = await chat.waitFor("I will write it.");
  // The canonical target: resolved, shown relative to its real root.
  at = await chat.waitFor("overwrites 4 bytes", at);
  at = await chat.waitFor("Approve write_file notes.txt?", at);
  const before = chat.text().slice(0, at);
  assert.ok(
    /I will write it\.\s*\n/.test(before),
    "the question is not glued to the model's text",
  );
  await chat.type("maybe\r");
  at = await chat.waitFor("is not an answer", at);
  await chat.type("y\r");
  await within(provider.arrived(2), 20_000, "the request after the tool ran");
  at = await chat.waitFor("Done.", at);
  assert.equal(await Deno.readTextFile(`${dir}/notes.txt`), "new text\n");
  await chat.type("\x04");
  assert.equal(await chat.waitExit(), 4);
});

Deno.test("chat on a terminal: n declines the write plainly and the file stays", async () => {
  await using rig = await writeChat("OK.");
  const { dir, chat } = rig;
  let at = await chat.waitFor("overwrites 4 bytes");
  await chat.type("n\r");
  at = await chat.waitFor("declined", at);
  await chat.type("\x04");
  assert.equal(await chat.waitExit(), 4);
  assert.equal(await Deno.readTextFile(`${dir}/notes.txt`), "old\n");
});

Deno.test("chat on a terminal: accept-edits and auto write inside the project unasked; plan refuses the write", async (t) => {
  for (
    const [mode, expected] of [
      ["accept-edits", "new text\n"],
      ["auto", "new text\n"],
      ["plan", "old\n"],
    ] as const
  ) {
    await t.step(mode, async () => {
      await using rig = await writeChat("Over.", mode);
      const { dir, provider, chat } = rig;
      // accept-edits runs the write and the model answers; plan refuses
      // the call, and the turn ends saying how to go on.
      const at = mode === "plan"
        ? await chat.waitFor("not allowed in plan mode (read-only)")
        : await within(
          provider.arrived(2),
          20_000,
          "the request after the call",
        )
          .then(() => chat.waitFor("Over."));
      assert.ok(!chat.text().includes("Approve write_file"), "never asked");
      await chat.waitFor(`${mode} > `, at);
      await chat.type("\x04");
      assert.equal(await chat.waitExit(), 4);
      assert.equal(await Deno.readTextFile(`${dir}/notes.txt`), expected);
    });
  }
});
