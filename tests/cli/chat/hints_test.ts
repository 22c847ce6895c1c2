/**
 * The hint after a failed turn names the fix that applies to the
 * engine's reason, and only commands that exist; hints and the resume
 * line name the CLI as it was invoked.
 */
import assert from "node:assert/strict";
import { turnFailureHint } from "../../../cli/chat/hints.ts";
import { createBufferedIo } from "../../../cli/io/io.ts";
import { main } from "../../../cli/main.ts";
import { tempDir, textCassette, write } from "../_helpers.ts";
import { runSlash, type SlashContext } from "../../../cli/chat/slash.ts";
import { ERROR_CODES, type ErrorCode } from "../../../schema/event.ts";

const ROWS: Array<[ErrorCode, string, RegExp]> = [
  [
    "tool_denied",
    "Tool call denied (user_rejected): rejected by the user",
    /^You declined the tool call; nothing ran\. Say what to do instead/,
  ],
  [
    "tool_denied",
    "Tool call denied (command_not_allowed): the command is not in the allowlist",
    /^The command is not on your allowlist: add it to \[chat\]\.allowed_commands/,
  ],
  [
    "tool_denied",
    "Tool call denied (domain_not_allowed): example.org is not allowed",
    /\[chat\]\.allowed_domains/,
  ],
  [
    "tool_denied",
    "Tool call denied (no_approval_hook): write_file needs approval in ask mode and there is no terminal to ask on",
    /run the chat on a terminal .*--mode accept-edits/,
  ],
  [
    "tool_denied",
    "Tool call denied: write_file is not allowed in plan mode (read-only)",
    /^Plan mode is read-only: \/mode ask/,
  ],
  [
    "tool_denied",
    "Tool call denied: a protected-path write needs interactive approval",
    /protected/,
  ],
  [
    "tool_unavailable",
    "Tool unavailable: git_status needs the Deno permission --allow-run=git",
    /^Restart with the Deno permission --allow-run=git \(rel doctor --permissions/,
  ],
  [
    "turn_limit",
    "session reached its hard cap of 200 turns",
    /start a new chat/,
  ],
  [
    "turn_limit",
    "The turn reached its limit of 25 tool rounds",
    /smaller step/,
  ],
  [
    "tool_failed",
    "write_file failed: the parent directory does not exist (set createDirs to create it)",
    /reason is above/,
  ],
  ["provider_auth", "x", /^Check the provider API key \(rel doctor\)$/],
];

Deno.test("turnFailureHint() follows the engine's reason", () => {
  for (const [code, message, want] of ROWS) {
    const hint = turnFailureHint(code, message, { command: "rel" }) ?? "";
    assert.match(hint, want, message);
  }
});

Deno.test("turnFailureHint(): an allowlist refusal or a declined call never says to change the mode", () => {
  for (
    const message of [
      "Tool call denied (command_not_allowed): the command is not in the allowlist",
      "Tool call denied (user_rejected): rejected by the user",
    ]
  ) {
    assert.doesNotMatch(turnFailureHint("tool_denied", message) ?? "", /mode/);
  }
});

Deno.test("every slash command a hint names exists", () => {
  const hints = allHints();
  const named = new Set(
    hints.flatMap((h) =>
      [...h.matchAll(/(?:^|\s)\/([a-z]+)/g)].map((m) => m[1] ?? "")
    ),
  );
  assert.ok(named.size > 0, "the hints name some commands");
  for (const name of named) {
    const out: string[] = [];
    const ctx: SlashContext = {
      write: (t) => out.push(t),
      sessionId: "s",
      store: {} as SlashContext["store"],
      mode: "ask",
      setMode: () => {},
    };
    runSlash(`/${name}`, ctx);
    assert.doesNotMatch(
      out.join(""),
      /Unknown command|not available in this version/,
      `/${name}`,
    );
  }
});

/** Every hint, for every code, the sample messages and memory policies. */
function allHints(): string[] {
  const codes = ERROR_CODES;
  const messages = ["x", ...ROWS.map(([, m]) => m)];
  return codes.flatMap((c) =>
    messages.flatMap((m) =>
      (["summary", "window", "none"] as const).map((memory) =>
        turnFailureHint(c, m, { memory, possibleOverflowMessage: "x" }) ?? ""
      )
    )
  );
}

Deno.test("chat: the resume line names the CLI as it was invoked", async () => {
  await using dir = await tempDir();
  await write(`${dir.path}/c.json`, textCassette("anthropic", ["Hi."]));
  const b = createBufferedIo({
    env: { RELAVIUM_HOME: `${dir.path}/home`, NO_COLOR: "1" },
    cwd: dir.path,
    stdin: "hello\n",
  });
  const io = { ...b.io, invocation: () => "deno run -A /opt/rel/cli.ts" };
  assert.equal(await main(["chat", "--fixture", "c.json"], io), 0);
  assert.match(
    b.stderrText(),
    /\nResume with: deno run -A \/opt\/rel\/cli\.ts chat-resume [0-9a-f-]{36}\n$/,
  );
});
