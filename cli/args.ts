/**
 * Argument parsing with `node:util` `parseArgs`. Global flags
 * are valid anywhere on the line; each command has its own flags. Bad input
 * is a typed `usage` error, never a throw.
 *
 * @module
 */
import { parseArgs } from "node:util";
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
};

interface Parsed {
  values: Values;
  positionals: string[];
  optionNames: string[];
}

function parse(argv: readonly string[], strict: boolean): Parsed {
  const r = parseArgs({
    args: [...argv],
    options: OPTIONS,
    allowPositionals: true,
    allowNegative: true,
    strict,
    tokens: true,
  });
  const optionNames: string[] = [];
  for (const t of r.tokens) {
    if (t.kind === "option") optionNames.push(t.rawName);
  }
  return {
    values: r.values as Values,
    positionals: r.positionals,
    optionNames,
  };
}

function topicOf(positionals: readonly string[]): HelpTopic {
  const first = positionals[0];
  return first !== undefined && Object.hasOwn(TOPICS, first)
    ? TOPICS[first] ?? "main"
    : "main";
}

function describeParseError(e: unknown): string {
  const code = (e as { code?: unknown }).code;
  const message = e instanceof Error ? e.message : String(e);
  const name = /'(-[^' ]+)/.exec(message)?.[1] ?? "";
  switch (code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
      return `Unknown option: ${name}`;
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE":
      if (message.includes("does not take an argument")) {
        return `Option ${name} does not take a value`;
      }
      if (message.includes("ambiguous")) {
        return `Missing value for ${name} (write ${name}=<value> for a value starting with "-")`;
      }
      return `Missing value for ${name}`;
    default:
      return `Invalid arguments: ${message.split("\n")[0] ?? ""}`;
  }
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
  let lenient: Parsed;
  try {
    lenient = parse(argv, false);
  } catch {
    lenient = { values: {}, positionals: [], optionNames: [] };
  }
  const json = flagPart.includes("--json");
  const topic = topicOf(lenient.positionals);
  if (lenient.values.help === true) return ok({ kind: "help", topic });
  if (lenient.values.version === true) return ok({ kind: "version" });
  const fail = (message: string): { ok: false; error: UsageError } =>
    err({ code: "usage", message, json, topic });

  let p: Parsed;
  try {
    p = parse(argv, true);
  } catch (e) {
    return fail(describeParseError(e));
  }
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
