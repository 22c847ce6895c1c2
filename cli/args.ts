/**
 * Argument parsing (`splitArgv`, the rules of `node:util` `parseArgs`). Global flags
 * are valid anywhere on the line; each command has its own flags. Bad input
 * is a typed `usage` error, never a throw.
 *
 * @module
 */
import { splitArgv } from "./argv.ts";
import { err, ok, type Result } from "../schema/result.ts";
import { buildCommand, helpName } from "./args_command.ts";
import {
  type GlobalOptions,
  type HelpTopic,
  type ModeName,
  type OptionName,
  OPTIONS,
  type ParsedCli,
  type UsageError,
  type Values,
} from "./command_line.ts";

export type {
  CliCommand,
  GlobalOptions,
  HelpTopic,
  ModeName,
  OutputFormat,
  ParsedCli,
  UsageError,
  Values,
} from "./command_line.ts";

const MODES: readonly ModeName[] = ["ask", "plan", "accept-edits", "auto"];

const GLOBAL: ReadonlySet<string> = new Set<OptionName>([
  "json",
  "cwd",
  "config",
  "color",
  "verbose",
  "quiet",
  "version",
  "help",
]);

const COMMAND_OPTIONS: Readonly<Record<Exclude<HelpTopic, "main">, string[]>> =
  {
    "chat": ["agent", "model", "provider", "fixture", "record", "mode"],
    "chat-resume": ["last", "fixture", "record", "mode"],
    "chat-list": ["here"],
    "chat-show": [],
    "chat-delete": ["yes"],
    "chat-release": ["force"],
    "chat-export": ["out", "force"],
    "agent-run": [
      "fixture",
      "record",
      "mode",
      "input",
      "model",
      "provider",
      "output",
    ],
    "config": [],
    "doctor": ["permissions", "agent"],
    "trust": [],
    "mcp": ["agent"],
    "serve": ["host", "port"],
    "store": ["from"],
  };

const TOPICS: Readonly<Record<string, Exclude<HelpTopic, "main">>> = {
  "chat": "chat",
  "chat-resume": "chat-resume",
  "chat-list": "chat-list",
  "chat-show": "chat-show",
  "chat-delete": "chat-delete",
  "chat-release": "chat-release",
  "chat-export": "chat-export",
  "agent": "agent-run",
  "config": "config",
  "doctor": "doctor",
  "trust": "trust",
  "mcp": "mcp",
  "serve": "serve",
  "store": "store",
};

interface Parsed {
  values: Values;
  positionals: string[];
  optionNames: string[];
}

function parse(argv: readonly string[], strict: boolean): Parsed | string {
  const r = splitArgv(argv, OPTIONS, strict);
  if (!r.ok) return r.message;
  return {
    values: r.values as Values,
    positionals: r.positionals,
    optionNames: r.optionNames,
  };
}

function topicOf(positionals: readonly string[]): HelpTopic {
  const first = positionals[0];
  return first !== undefined && Object.hasOwn(TOPICS, first)
    ? TOPICS[first] ?? "main"
    : "main";
}

/**
 * Parses the command line (without the program name).
 *
 * `-h`/`--help` wins over everything else on the line, then
 * `-V`/`--version`; both are answered even when other flags are wrong.
 *
 * @param argv The arguments after the program name.
 * @returns What to run, or a `usage` error.
 */
export function parseCliArgs(
  argv: readonly string[],
): Result<ParsedCli, UsageError> {
  const terminator = argv.indexOf("--");
  const flagPart = terminator === -1 ? argv : argv.slice(0, terminator);
  const loose = parse(argv, false);
  const lenient: Parsed = typeof loose === "string"
    ? { values: {}, positionals: [], optionNames: [] }
    : loose;
  const json = flagPart.includes("--json");
  const topic = topicOf(lenient.positionals);
  if (lenient.values.help === true) return ok({ kind: "help", topic });
  if (lenient.values.version === true) return ok({ kind: "version" });
  const fail = (message: string): { ok: false; error: UsageError } =>
    err({ code: "usage", message, json, topic });

  const p = parse(argv, true);
  if (typeof p === "string") return fail(p);
  for (const raw of p.optionNames) {
    if (raw.startsWith("--no-") && raw !== "--no-color") {
      return fail(`Unknown option: ${raw}`);
    }
  }
  const v = p.values;
  if (v.verbose === true && v.quiet === true) {
    return fail("Options -v and -q cannot be combined");
  }
  const globals: GlobalOptions = {
    json: v.json === true,
    verbose: v.verbose === true,
    quiet: v.quiet === true,
  };
  for (const key of ["cwd", "config"] as const) {
    const value = v[key];
    if (value === "") return fail(`Missing value for --${key}`);
    if (value !== undefined) globals[key] = value;
  }
  if (v.color !== undefined) globals.color = v.color;

  const [first, ...rest] = p.positionals;
  if (first === undefined) {
    return fail("Missing command (--help lists them)");
  }
  if (!Object.hasOwn(TOPICS, first)) {
    return fail(`Unknown command: ${first}`);
  }
  const cmdTopic = TOPICS[first] ?? "chat";
  const allowed = new Set(COMMAND_OPTIONS[cmdTopic]);
  for (const raw of p.optionNames) {
    const name = optionName(raw);
    if (!GLOBAL.has(name) && !allowed.has(name)) {
      return fail(`Option ${raw} is not valid for ${helpName(cmdTopic)}`);
    }
  }
  for (
    const key of [
      "agent",
      "model",
      "provider",
      "fixture",
      "record",
      "out",
      "output",
      "host",
      "port",
      "from",
    ] as const
  ) {
    if (v[key] === "") return fail(`Missing value for --${key}`);
  }
  let mode: ModeName | undefined;
  if (v.mode !== undefined) {
    mode = MODES.find((m) => m === v.mode);
    if (mode === undefined) {
      return fail(`Invalid --mode: expected one of ${MODES.join(", ")}`);
    }
  }
  const command = buildCommand(cmdTopic, rest, v, mode);
  if (typeof command === "string") return fail(command);
  return ok({ kind: "run", command, globals });
}

function optionName(raw: string): string {
  if (raw === "--no-color") return "color";
  if (raw.startsWith("--")) return raw.slice(2);
  const short = raw.slice(1);
  for (const [name, spec] of Object.entries(OPTIONS)) {
    if ("short" in spec && spec.short === short) return name;
  }
  return short;
}
