/**
 * The hint printed on its own line after `[turn failed: <code>] <message>`:
 * the fix that applies to this failure. It depends on the code and on the
 * engine's own message (never on provider text): a denial the user gave,
 * an allowlist refusal, a mode or a missing terminal, a protected path and
 * a missing Deno permission each get their own remedy. A hint names only
 * commands that exist, and the CLI as it was invoked.
 *
 * @module
 */
import type { ErrorCode } from "../../schema/event.ts";

const HINTS: Readonly<Partial<Record<ErrorCode, string>>> = {
  provider_rate_limit:
    "The provider is rate limiting (already retried and failed over); resend the message later",
  provider_unavailable:
    "The provider is unavailable (already retried and failed over); resend the message later",
  content_filter: "The provider filtered the content; rephrase the message",
  context_overflow:
    "The conversation is too long for the model: /compact or /trim, then resend",
  tool_failed:
    "The tool's reason is above; correct what it names (or ask the model to) and resend",
  budget_exceeded:
    "The session cost cap ([chat].max_cost_microcents) was reached; raise it, or start a new chat",
  internal: "Internal error; the session is intact, resend or restart",
};

/**
 * What the hint may depend on besides the code.
 */
export interface HintOptions {
  /**
   * The engine's fixed possible-overflow text; a `validation` error with
   * exactly this message gets the overflow hint.
   */
  possibleOverflowMessage?: string;
  /**
   * The agent's memory policy (`undefined` when omitted): an overflow
   * remedy never names a command the policy refuses.
   */
  memory?: "none" | "window" | "summary";
  /**
   * How the CLI was invoked (`relavium`, `deno run <permissions> /…/cli.ts`),
   * for hints naming one of its commands (default `relavium`).
   */
  command?: string;
}

function overflowHint(memory: HintOptions["memory"]): string {
  switch (memory) {
    case "none":
      return "The message is too long for the model on its own (this agent's memory is none): shorten it and resend";
    case "window":
      return "The conversation is too long for the model: /trim, then resend (or start a new chat with a smaller memory window_size)";
    default:
      return HINTS.context_overflow ?? "";
  }
}

/** The remedy of a denied tool call, from the engine's reason. */
function deniedHint(message: string): string {
  if (/\(user_rejected\)/.test(message)) {
    return "You declined the tool call; nothing ran. Say what to do instead, or resend to be asked again";
  }
  if (/\(command_not_allowed\)/.test(message)) {
    return "The command is not on your allowlist: add it to [chat].allowed_commands in your config.toml, then resend";
  }
  if (/\(domain_not_allowed\)/.test(message)) {
    return "The host is not on your allowlist: add it to [chat].allowed_domains in your config.toml, then resend";
  }
  if (/\(gate_required\)/.test(message)) {
    return "This tool needs your yes on every call: use it in an interactive chat on a terminal, outside plan mode";
  }
  if (/no terminal to ask on/.test(message)) {
    return "Nobody could be asked: run the chat on a terminal to approve it, or choose a mode that runs it unasked (--mode accept-edits for writes, --mode auto)";
  }
  if (/not allowed in plan mode/.test(message)) {
    return "Plan mode is read-only: /mode ask (or accept-edits, auto) lets the model act, then resend";
  }
  if (/protected-(path write|write floor)/.test(message)) {
    return "The path is protected (version control, shell and tool start-up files): no mode writes it unasked; make that change yourself";
  }
  if (/sensitive-read floor/.test(message)) {
    return "The path is sensitive (keys, credentials): no tool reads it; paste what is needed yourself";
  }
  if (/symlink|hard link|escapes the allowed filesystem scope/.test(message)) {
    return "The path is outside what the tools may touch ([chat].fs_scope and the jail); use a path inside the project";
  }
  return "The tool call was refused for the reason above; resend once that is changed";
}

/** The remedy of an unavailable tool, from the engine's reason. */
function unavailableHint(message: string, command: string): string {
  const flag = /(--allow-[a-z-]+(?:=[^\s,;)]+)?)/.exec(message)?.[1];
  if (flag !== undefined) {
    return `Restart with the Deno permission ${flag} (${command} doctor --permissions lists the flags an agent needs)`;
  }
  return `A capability the tool needs is missing here (${command} doctor shows what is configured)`;
}

/** The remedy of a turn or session limit. */
function limitHint(message: string): string {
  if (/hard cap/.test(message)) {
    return "This session reached its turn cap; start a new chat (its history stays listed)";
  }
  return "The turn did too much at once; ask for a smaller step and resend";
}

/**
 * The hint for a failed turn.
 *
 * @param code The turn's error code.
 * @param message The engine-authored error message.
 * @param options The possible-overflow text, the memory policy and how
 * the CLI was invoked.
 * @returns The hint, or `undefined` when the code has none.
 */
export function turnFailureHint(
  code: ErrorCode,
  message: string,
  options: HintOptions = {},
): string | undefined {
  const command = options.command ?? "relavium";
  switch (code) {
    case "context_overflow":
      return overflowHint(options.memory);
    case "validation": {
      const possible = options.possibleOverflowMessage;
      return possible !== undefined && message === possible
        ? overflowHint(options.memory)
        : undefined;
    }
    case "tool_denied":
      return deniedHint(message);
    case "tool_unavailable":
      return unavailableHint(message, command);
    case "turn_limit":
      return limitHint(message);
    case "provider_auth":
      return `Check the provider API key (${command} doctor)`;
    default:
      return HINTS[code];
  }
}
