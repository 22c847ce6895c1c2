/**
 * The command line's vocabulary: its options, commands, modes and help
 * topics, shared by the parser (`args.ts`) and the command builder
 * (`args_command.ts`).
 *
 * @module
 */

/**
 * Approval modes.
 */
export type ModeName = "ask" | "plan" | "accept-edits" | "auto";

/**
 * `agent run --output` formats.
 */
export type OutputFormat = "text" | "json";

/**
 * Flags valid on every command.
 */
export interface GlobalOptions {
  /** `--json`: NDJSON events / JSON records on stdout. */
  json: boolean;
  /** `--cwd <dir>`: replaces the process cwd everywhere. */
  cwd?: string;
  /** `--config <path>`: replaces the global config file. */
  config?: string;
  /** `--color` (`true`) / `--no-color` (`false`); absent ⇒ environment. */
  color?: boolean;
  /** `-v`/`--verbose`. */
  verbose: boolean;
  /** `-q`/`--quiet`. */
  quiet: boolean;
}

/**
 * A parsed command with its own flags.
 */
export type CliCommand =
  | {
    name: "chat";
    agent?: string;
    model?: string;
    provider?: string;
    fixture?: string;
    record?: string;
    mode?: ModeName;
  }
  | {
    name: "chat-resume";
    sessionId?: string;
    last: boolean;
    fixture?: string;
    record?: string;
    mode?: ModeName;
    /** `/model` in a chat: continue the session on this model (never from argv). */
    reseat?: { model: string; provider: string };
  }
  | { name: "chat-list"; here: boolean }
  | { name: "chat-show"; sessionId: string }
  | { name: "chat-delete"; sessionId: string; yes: boolean }
  | { name: "chat-release"; sessionId: string; force: boolean }
  | { name: "chat-export"; sessionId: string; out?: string; force: boolean }
  | {
    name: "agent-run";
    /** Absent ⇒ the built-in chat agent. */
    agent?: string;
    /** The prompt argument; absent ⇒ all of stdin is the prompt. */
    prompt?: string;
    /** `--output`: `text` (the answer streamed) or `json` (one record). */
    output: OutputFormat;
    model?: string;
    provider?: string;
    fixture?: string;
    record?: string;
    mode?: ModeName;
  }
  | { name: "config-path" }
  | { name: "config-show" }
  | { name: "doctor"; permissions: boolean; agent?: string }
  | { name: "trust"; file?: string }
  | { name: "mcp-list"; agent?: string }
  | { name: "serve"; host?: string; port?: number }
  | { name: "store-migrate"; from?: string };

/**
 * Help pages: the overview and one per command.
 */
export type HelpTopic =
  | "main"
  | "chat"
  | "chat-resume"
  | "chat-list"
  | "chat-show"
  | "chat-delete"
  | "chat-release"
  | "chat-export"
  | "agent-run"
  | "config"
  | "doctor"
  | "trust"
  | "mcp"
  | "serve"
  | "store";

/**
 * What the command line asks for.
 */
export type ParsedCli =
  | { kind: "help"; topic: HelpTopic }
  | { kind: "version" }
  | { kind: "run"; command: CliCommand; globals: GlobalOptions };

/**
 * A bad command line: exit 2. `json` tells the printer which error form
 * to use even though parsing failed.
 */
export interface UsageError {
  code: "usage";
  message: string;
  json: boolean;
  topic: HelpTopic;
}

export const OPTIONS = {
  json: { type: "boolean" },
  cwd: { type: "string" },
  config: { type: "string" },
  color: { type: "boolean" },
  verbose: { type: "boolean", short: "v" },
  quiet: { type: "boolean", short: "q" },
  version: { type: "boolean", short: "V" },
  help: { type: "boolean", short: "h" },
  agent: { type: "string" },
  model: { type: "string" },
  provider: { type: "string" },
  fixture: { type: "string" },
  record: { type: "string" },
  mode: { type: "string" },
  last: { type: "boolean" },
  here: { type: "boolean" },
  yes: { type: "boolean" },
  input: { type: "string", multiple: true },
  permissions: { type: "boolean" },
  out: { type: "string" },
  force: { type: "boolean" },
  output: { type: "string" },
  host: { type: "string" },
  port: { type: "string" },
  from: { type: "string" },
} as const;

export type OptionName = keyof typeof OPTIONS;

/**
 * Parsed option values, by option name.
 */
export type Values = {
  [K in OptionName]?: (typeof OPTIONS)[K] extends { multiple: true } ? string[]
    : (typeof OPTIONS)[K] extends { type: "string" } ? string
    : boolean;
};
