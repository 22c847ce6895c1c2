/**
 * Live text: a delta's text reaches stdout while the provider still holds
 * the next one back. A loopback Anthropic server sends its first delta and
 * then waits until the test has read that delta's text on the CLI's stdout;
 * only then does it send the rest. A redactor that held a delta until the
 * next event would never print it, and the test would time out. The first
 * delta ends with the marker of a key whose body comes in the second: the
 * marker goes out after the bounded wait, the body is redacted.
 */
import assert from "node:assert/strict";
import type { SessionEvent } from "../../../schema/event.ts";
import { spawnCli } from "../_child.ts";
import { agentYaml, declareProviders, PLANTED } from "../_fake_providers.ts";
import { tempDir, trustProjectFiles, write } from "../_helpers.ts";
import { serve, within } from "../../llm/adapters/_server.ts";
import {
  ANTHROPIC_START,
  ANTHROPIC_TEXT_BLOCK,
  anthropicDelta,
  anthropicEnd,
} from "../../_kit/anthropic_sse.ts";

const enc = new TextEncoder();
const KEY_BODY = "proj-Ab3dEf6hIj9kLm2nOp5qRs8t";

const HEAD = ANTHROPIC_START + ANTHROPIC_TEXT_BLOCK;
const TAIL = anthropicEnd(9);

function tokens(lines: readonly string[]): string {
  let text = "";
  for (const line of lines) {
    if (!line.startsWith("{")) continue;
    const event = JSON.parse(line) as SessionEvent;
    if (event.type === "agent:token") text += event.token;
  }
  return text;
}

const COMMANDS: Array<[string, string[]]> = [
  ["agent run --json", ["agent", "run", "a.agent.yaml", "--json"]],
  ["chat --json", ["--json", "chat", "--agent", "a.agent.yaml"]],
];

for (const [name, argv] of COMMANDS) {
  Deno.test(`${name}: a delta is on stdout before the next is sent; a key split across the wait is redacted`, async () => {
    await using dir = await tempDir();
    let release = (): void => {};
    const gate = new Promise<void>((resolve) => release = resolve);
    const server = serve([() =>
      new Response(
        new ReadableStream<Uint8Array>({
          async start(controller): Promise<void> {
            controller.enqueue(
              enc.encode(HEAD + anthropicDelta("Hello there, key sk-")),
            );
            await gate;
            controller.enqueue(
              enc.encode(anthropicDelta(`${KEY_BODY} and done.`) + TAIL),
            );
            controller.close();
          },
        }),
        { headers: { "content-type": "text/event-stream" } },
      )]);
    try {
      await declareProviders(dir.path, [{
        id: "fake-anthropic",
        kind: "anthropic",
        baseUrl: server.url,
        allowLocal: true,
      }]);
      await write(
        `${dir.path}/a.agent.yaml`,
        agentYaml({ provider: "fake-anthropic", model: "claude-sonnet-4-6" }),
      );
      const env = {
        RELAVIUM_HOME: `${dir.path}/home`,
        RELAVIUM_FAKE_ANTHROPIC_API_KEY: PLANTED.anthropic,
        NO_COLOR: "1",
      };
      await trustProjectFiles(dir.path, env);
      await using child = spawnCli(argv, { cwd: dir.path, env });
      await child.send("hi");
      await child.endInput();
      // The first delta's text, then (after the bounded wait) its marker,
      // both while the server still holds the second delta back.
      const early = await within(
        child.readUntil(() => tokens(child.lines) === "Hello there, key sk-"),
        20_000,
        "the first delta on stdout while the server waits",
      );
      if (early === undefined) {
        assert.fail(
          `stdout ended before the first delta: ${child.lines.join("\n")}\n${
            (await child.finished()).stderr
          }`,
        );
      }
      release();
      const done = await within(
        child.readUntil((l) => l.includes('"session:turn_completed"')),
        20_000,
        "the turn to end",
      );
      assert.ok(done !== undefined, "stdout ended before the turn did");
      assert.equal(
        tokens(child.lines),
        "Hello there, key sk-[redacted] and done.",
      );
      assert.ok(
        !child.lines.join("\n").includes(KEY_BODY),
        "the key's body leaked",
      );
      const end = await child.finished();
      assert.equal(end.code, 0, end.stderr);
    } finally {
      release();
      await server.close();
    }
  });
}
