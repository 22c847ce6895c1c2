/**
 * An MCP stdio server written in an agent file, on a terminal: `chat`
 * shows its exact command, arguments and environment names before
 * anything is spawned; `y` records the approval in the home (later runs
 * start it unasked), `n` leaves it unstarted; `agent run` on a real
 * pseudo-terminal asks the same. Without a terminal nothing is asked (the
 * one notice).
 */
import assert from "node:assert/strict";
import { runCli, tempDir, textCassette, write } from "./_helpers.ts";
import { serverArgs } from "../tools/mcp/_harness.ts";
import { spawnPty } from "./_pty.ts";

async function setUp(dir: string): Promise<{
  ws: string;
  marker: string;
  env: Record<string, string>;
}> {
  const ws = `${dir}/ws`;
  const marker = `${dir}/spawned`;
  await write(
    `${ws}/a.agent.yaml`,
    `id: a\nmodel: claude-haiku-4-5\nprovider: anthropic\nsystem_prompt: Help.\nmcp_servers:\n  - id: local\n    transport: stdio\n    command: ${
      JSON.stringify(Deno.execPath())
    }\n    args: ${
      JSON.stringify(serverArgs(dir, marker))
    }\n    env: { CALC_TOKEN: "x" }\n`,
  );
  await write(`${ws}/c.json`, textCassette("anthropic", ["unused"]));
  const env = {
    RELAVIUM_HOME: `${dir}/home`,
    NO_COLOR: "1",
    PATH: Deno.env.get("PATH") ?? "",
    HOME: Deno.env.get("HOME") ?? "",
  };
  return { ws, marker, env };
}

const spawned = (marker: string) =>
  Deno.stat(marker).then(() => true, () => false);

for (const [answer, yes] of [["y", true], ["n", false]] as const) {
  Deno.test(`chat on a terminal asks to start an agent file's MCP stdio server; "${answer}" ${yes ? "approves and records it" : "leaves it unstarted"}`, async () => {
    await using dir = await tempDir();
    const { ws, marker, env } = await setUp(dir.path);
    const chat = (stdin: string) =>
      runCli(["chat", "--agent", "a.agent.yaml", "--fixture", "c.json"], {
        env,
        cwd: ws,
        tty: true,
        stdin,
      });
    const r = await chat(`${answer}\n/exit\n`);
    const asked = r.stderr.match(/declares the MCP server local/g);
    assert.equal(asked?.length, 1, r.stderr);
    assert.ok(
      r.stderr.includes(
        `a.agent.yaml declares the MCP server local, which runs: ${
          [Deno.execPath(), ...serverArgs(dir.path, marker)].map((a) =>
            JSON.stringify(a)
          ).join(" ")
        } (env CALC_TOKEN). Start it`,
      ),
      r.stderr,
    );
    assert.equal(await spawned(marker), yes);
    if (!yes) {
      assert.match(r.stderr, /MCP server local is not started: .*not approved/);
      return;
    }
    // Recorded: the next session starts it without asking.
    await Deno.remove(marker);
    const again = await chat("/exit\n");
    assert.doesNotMatch(again.stderr, /declares the MCP server/);
    assert.equal(await spawned(marker), true);
  });
}

Deno.test("chat without a terminal never asks about an agent file's MCP stdio server", async () => {
  await using dir = await tempDir();
  const { ws, marker, env } = await setUp(dir.path);
  const r = await runCli(
    ["chat", "--agent", "a.agent.yaml", "--fixture", "c.json"],
    { env, cwd: ws, stdin: "y\n" },
  );
  assert.doesNotMatch(r.stderr, /declares the MCP server local, which runs/);
  assert.match(r.stderr, /MCP server local is not started: .*not approved/);
  assert.equal(await spawned(marker), false);
});

for (const [answer, yes] of [["y", true], ["n", false]] as const) {
  Deno.test(`agent run on a terminal asks to start an agent file's MCP stdio server; "${answer}" ${yes ? "starts it" : "leaves it unstarted"}`, async () => {
    await using dir = await tempDir();
    const { ws, marker, env } = await setUp(dir.path);
    await write(`${ws}/c.json`, textCassette("anthropic", ["Done."]));
    await using run = spawnPty(
      ["agent", "run", "a.agent.yaml", "--fixture", "c.json", "hi"],
      { cwd: ws, env },
    );
    const at = await run.waitFor(
      /declares the MCP server local, which runs: .*\(env CALC_TOKEN\)\. Start it/s,
    );
    // Nothing is spawned before the answer.
    assert.equal(await spawned(marker), false);
    await run.type(`${answer}\r`);
    if (!yes) {
      await run.waitFor(/MCP server local is not started: .*not approved/s, at);
    }
    await run.waitFor("Done.", at);
    assert.equal(await run.waitExit(), 0, run.text());
    assert.equal(await spawned(marker), yes);
  });
}
