/** Shared pieces of the attack tables: a scripted model's calls, the agent and cassette files, an interactive chat on a fake TTY. */
import { createBufferedIo } from "../../cli/io/io.ts";
import { main } from "../../cli/main.ts";
import { lineStdin, write } from "../cli/_helpers.ts";

/** One cassette call: the model asks for one tool call. */
export function toolCall(name: string, args: unknown): unknown {
  return {
    chunks: [
      { type: "tool_call_start", id: "c1", name },
      {
        type: "tool_call_delta",
        id: "c1",
        argsJsonDelta: JSON.stringify(args),
      },
      { type: "tool_call_end", id: "c1" },
      {
        type: "stop",
        stopReason: "tool_use",
        usage: { inputTokens: 10, outputTokens: 3 },
      },
    ],
  };
}

/** One cassette call: the model answers with text. */
export function textCall(text: string): unknown {
  return {
    chunks: [
      { type: "text_delta", text },
      {
        type: "stop",
        stopReason: "stop",
        usage: { inputTokens: 20, outputTokens: 4 },
      },
    ],
  };
}

/**
 * Writes `helper.agent.yaml` (anthropic, granting `tools`) and the strict
 * v1.1 cassette `c.json` into `dir`.
 */
export async function writeScript(
  dir: string,
  options: { tools: readonly string[]; calls: readonly unknown[] },
): Promise<void> {
  await write(
    `${dir}/helper.agent.yaml`,
    `id: helper\nmodel: claude-haiku-4-5\nprovider: anthropic\nsystem_prompt: Help.\ntools: [${
      options.tools.join(", ")
    }]\n`,
  );
  await write(
    `${dir}/c.json`,
    JSON.stringify({
      schema_version: "1.1",
      strict: true,
      provider: "anthropic",
      calls: options.calls,
    }),
  );
}

/** The flags that run the script `writeScript` wrote into `dir`. */
export function scriptFlags(dir: string): string[] {
  return ["--agent", `${dir}/helper.agent.yaml`, "--fixture", `${dir}/c.json`];
}

/** Runs `chat` with the script of `dir` on a fake TTY, line by line. */
export async function interactiveChat(
  dir: string,
  options: {
    cwd: string;
    env: Record<string, string>;
    lines: readonly string[];
    mode: string;
  },
): Promise<{ code: number; stdout: string; stderr: string }> {
  const b = createBufferedIo({
    env: { NO_COLOR: "1", ...options.env },
    cwd: options.cwd,
    stdin: lineStdin(options.lines),
    stdinIsTerminal: true,
    stdoutIsTerminal: true,
  });
  const code = await main(
    ["chat", ...scriptFlags(dir), "--mode", options.mode],
    b.io,
  );
  return { code, stdout: b.stdoutText(), stderr: b.stderrText() };
}
