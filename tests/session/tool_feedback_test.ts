/**
 * The model hears what it can fix: a tool failure where no effect started
 * goes back to the model as an error result in every session (here a
 * non-interactive one in `auto` mode), within the correction budget; a
 * denial ends the turn; a command that exits non-zero is a result.
 */
import assert from "node:assert/strict";
import {
  createMemoryStore,
  createScriptedProvider,
  denoRuntime,
  openSession,
  type TurnResult,
} from "../../mod.ts";
import type { StreamChunk } from "../../llm/chunk.ts";
import type { LlmRequest } from "../../llm/provider.ts";
import { denoTools, reply, toolCall } from "./_harness.ts";

const AGENT = {
  id: "writer",
  model: "gpt-5.4-mini",
  provider: "openai",
  system_prompt: "You write.",
  tools: ["write_file", "run_command"],
};

async function turn(
  script: StreamChunk[][],
  arrange?: (ws: string) => Promise<void>,
): Promise<
  {
    result: TurnResult;
    requests: readonly LlmRequest[];
    ws: string;
    done(): Promise<void>;
  }
> {
  const ws = await Deno.makeTempDir();
  await arrange?.(ws);
  const provider = createScriptedProvider({ id: "openai", script });
  const tools = denoTools(ws, { guardrails: { allowedCommands: ["false"] } });
  using live = openSession({
    store: createMemoryStore(),
    runtime: denoRuntime({ resolveProvider: () => provider, workingDir: ws }),
    tools,
    agent: AGENT,
    context: { workingDir: ws, fsScopeTier: "sandboxed" },
    settings: { mode: "auto" },
  });
  const result = await live.session.sendMessage("Write it");
  return {
    result,
    requests: provider.requests,
    ws,
    done: () => Deno.remove(ws, { recursive: true }),
  };
}

/** The tool results the request carries, in order. */
function toolResults(request: LlmRequest | undefined) {
  return (request?.messages ?? []).flatMap((m) =>
    m.content.filter((p) => p.type === "tool_result")
  );
}

Deno.test("sendMessage(): a write into a missing folder goes back to the model, and its next call completes the turn", async () => {
  const t = await turn([
    toolCall("c1", "write_file", { path: "notes/today.md", content: "hi" }),
    toolCall("c2", "write_file", {
      path: "notes/today.md",
      content: "hi",
      createDirs: true,
    }),
    reply("Written"),
  ]);
  try {
    assert.equal(t.result.kind, "completed");
    assert.equal(t.result.text, "Written");
    assert.equal(t.requests.length, 3, "a second request carries the error");
    const [first] = toolResults(t.requests[1]);
    assert.equal(first?.type === "tool_result" && first.isError, true);
    assert.match(
      String(first?.type === "tool_result" && first.result),
      /write_file failed: the parent directory does not exist/,
    );
    assert.equal(await Deno.readTextFile(`${t.ws}/notes/today.md`), "hi");
  } finally {
    await t.done();
  }
});

Deno.test("sendMessage(): failures the model cannot fix within 3 corrections end the turn tool_failed", async () => {
  const bad = (n: number) =>
    toolCall(`c${n}`, "write_file", { path: `../out${n}.txt`, content: "x" });
  const t = await turn([bad(1), bad(2), bad(3), bad(4), reply("never")]);
  try {
    assert.equal(t.result.kind, "failed");
    if (t.result.kind === "failed") {
      assert.equal(t.result.error.code, "tool_failed");
      assert.match(t.result.error.message, /within 3 rounds/);
    }
    assert.equal(t.requests.length, 4, "each escape went back, then the end");
  } finally {
    await t.done();
  }
});

Deno.test("sendMessage(): a denial ends the turn without a second request", async () => {
  const t = await turn([
    toolCall("c1", "write_file", {
      path: ".git/hooks/pre-commit",
      content: "x",
    }),
    reply("never"),
  ], (ws) => Deno.mkdir(`${ws}/.git/hooks`, { recursive: true }));
  try {
    assert.equal(t.result.kind, "failed");
    if (t.result.kind === "failed") {
      assert.equal(t.result.error.code, "tool_denied");
    }
    assert.equal(t.requests.length, 1);
  } finally {
    await t.done();
  }
});

Deno.test("sendMessage(): a command that exits non-zero is a result", async () => {
  const t = await turn([
    toolCall("c1", "run_command", { command: "false" }),
    reply("It exited 1"),
  ]);
  try {
    assert.equal(t.result.kind, "completed", JSON.stringify(t.result));
    const [result] = toolResults(t.requests[1]);
    assert.equal(result?.type === "tool_result" && result.isError, undefined);
    assert.match(
      String(result?.type === "tool_result" && result.result),
      /"exitCode":1/,
    );
  } finally {
    await t.done();
  }
});
