/**
 * Builds a {@linkcode CliCommand} from a command's positionals and flags
 * (the per-command half of `parseCliArgs`).
 *
 * @module
 */
import type {
  CliCommand,
  HelpTopic,
  ModeName,
  Values,
} from "./command_line.ts";

/**
 * The name a command is typed as.
 *
 * @param topic A command topic.
 * @returns For example `agent run` for `agent-run`.
 */
export function helpName(topic: Exclude<HelpTopic, "main">): string {
  return topic === "agent-run" ? "agent run" : topic;
}

function extra(args: readonly string[], name: string): string | undefined {
  return args.length > 0
    ? `Unexpected argument for ${name}: ${args[0]}`
    : undefined;
}

function defined<T extends Record<string, unknown>>(
  fields: T,
): { [K in keyof T]?: Exclude<T[K], undefined> } {
  const out: { [K in keyof T]?: Exclude<T[K], undefined> } = {};
  for (const k of Object.keys(fields) as Array<keyof T>) {
    const value = fields[k];
    if (value !== undefined) out[k] = value as Exclude<T[keyof T], undefined>;
  }
  return out;
}

/**
 * Whether a lone `agent run` argument names an agent rather than being the
 * prompt: a path (a separator, or ending in `.yaml`/`.yml`) or one
 * lowercase kebab-case word, the shape of an agent id.
 *
 * @param arg The argument.
 * @returns `true` for an agent reference.
 */
function looksLikeAgent(arg: string): boolean {
  return /[\\/]/.test(arg) || /\.ya?ml$/i.test(arg) ||
    /^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(arg);
}

/**
 * Splits `agent run`'s positionals: `<agent> <prompt>`; one argument is
 * the agent when {@linkcode looksLikeAgent}, else the prompt (the
 * built-in chat agent answers); none ⇒ the built-in agent with stdin.
 *
 * @param args The positionals after `run`.
 * @returns The agent and prompt, or a usage message.
 */
function splitRunArgs(
  args: readonly string[],
): { agent?: string; prompt?: string } | string {
  const [first, second, ...more] = args;
  const bad = extra(more, "agent run");
  if (bad !== undefined) return bad;
  if (first === "") return "agent run needs an agent (a file path or an id)";
  if (second !== undefined) {
    return second.trim() === ""
      ? "Empty prompt: give a prompt argument or pipe it on stdin"
      : { ...(first === undefined ? {} : { agent: first }), prompt: second };
  }
  if (first === undefined) return {};
  return looksLikeAgent(first) ? { agent: first } : { prompt: first };
}

/**
 * Builds the command of a topic from its positionals and option values.
 *
 * @param topic The command.
 * @param args The positionals after the command name.
 * @param v The parsed option values.
 * @param mode The validated `--mode`.
 * @returns The command, or a usage message.
 */
export function buildCommand(
  topic: Exclude<HelpTopic, "main">,
  args: readonly string[],
  v: Values,
  mode: ModeName | undefined,
): CliCommand | string {
  if (v.provider !== undefined && v.model === undefined) {
    return "Option --provider needs --model";
  }
  if (v.record !== undefined && v.fixture !== undefined) {
    return "Options --record and --fixture cannot be combined";
  }
  switch (topic) {
    case "chat":
      return extra(args, "chat") ?? {
        name: "chat",
        ...defined({
          agent: v.agent,
          model: v.model,
          provider: v.provider,
          fixture: v.fixture,
          record: v.record,
          mode,
        }),
      };
    case "chat-resume": {
      const [id, ...more] = args;
      const last = v.last === true;
      if (id !== undefined && last) {
        return "chat-resume takes a session id or --last, not both";
      }
      if (id === undefined && !last) {
        return "chat-resume needs a session id or --last";
      }
      return extra(more, "chat-resume") ?? {
        name: "chat-resume",
        last,
        ...defined({
          sessionId: id,
          fixture: v.fixture,
          record: v.record,
          mode,
        }),
      };
    }
    case "chat-list":
      return extra(args, "chat-list") ??
        { name: "chat-list", here: v.here === true };
    case "chat-show":
    case "chat-delete": {
      const [id, ...more] = args;
      if (id === undefined || id === "") return `${topic} needs a session id`;
      const bad = extra(more, topic);
      if (bad !== undefined) return bad;
      return topic === "chat-show"
        ? { name: "chat-show", sessionId: id }
        : { name: "chat-delete", sessionId: id, yes: v.yes === true };
    }
    case "chat-release": {
      const [id, ...more] = args;
      if (id === undefined || id === "") {
        return "chat-release needs a session id";
      }
      return extra(more, "chat-release") ??
        { name: "chat-release", sessionId: id, force: v.force === true };
    }
    case "chat-export": {
      const [id, ...more] = args;
      if (id === undefined || id === "") {
        return "chat-export needs a session id";
      }
      return extra(more, "chat-export") ?? {
        name: "chat-export",
        sessionId: id,
        force: v.force === true,
        ...defined({ out: v.out }),
      };
    }
    case "agent-run": {
      const [sub, ...rest] = args;
      if (sub !== "run") {
        return sub === undefined
          ? "agent needs a subcommand: run"
          : `Unknown agent subcommand: ${sub}`;
      }
      if (v.input !== undefined) {
        return "Option --input is reserved and not supported in this version";
      }
      const output = v.output ?? "text";
      if (output !== "text" && output !== "json") {
        return "Invalid --output: expected text or json";
      }
      if (output === "json" && v.json === true) {
        return "Options --json and --output json cannot be combined (--json is the event stream, --output json one final record)";
      }
      const split = splitRunArgs(rest);
      if (typeof split === "string") return split;
      return {
        name: "agent-run",
        output,
        ...defined({
          agent: split.agent,
          prompt: split.prompt,
          model: v.model,
          provider: v.provider,
          fixture: v.fixture,
          record: v.record,
          mode,
        }),
      };
    }
    case "config": {
      const [sub, ...more] = args;
      if (sub !== "path" && sub !== "show") {
        return sub === undefined
          ? "config needs a subcommand: path or show"
          : `Unknown config subcommand: ${sub}`;
      }
      return extra(more, `config ${sub}`) ??
        (sub === "path" ? { name: "config-path" } : { name: "config-show" });
    }
    case "trust": {
      const [file, ...more] = args;
      if (file === "") return "trust needs a file path";
      return extra(more, "trust") ??
        { name: "trust", ...(file === undefined ? {} : { file }) };
    }
    case "mcp": {
      const [sub, ...more] = args;
      if (sub !== "list") {
        return sub === undefined
          ? "mcp needs a subcommand: list"
          : `Unknown mcp subcommand: ${sub}`;
      }
      return extra(more, "mcp list") ??
        { name: "mcp-list", ...defined({ agent: v.agent }) };
    }
    case "serve": {
      const port = v.port === undefined ? undefined : Number(v.port);
      if (
        port !== undefined &&
        (!/^\d{1,5}$/.test(v.port ?? "") || port > 65_535)
      ) {
        return "Invalid --port: expected an integer from 0 to 65535";
      }
      return extra(args, "serve") ?? {
        name: "serve",
        ...defined({ host: v.host, port }),
      };
    }
    case "store": {
      const [sub, ...more] = args;
      if (sub !== "migrate-to-postgres") {
        return sub === undefined
          ? "store needs a subcommand: migrate-to-postgres"
          : `Unknown store subcommand: ${sub}`;
      }
      return extra(more, "store migrate-to-postgres") ??
        { name: "store-migrate", ...defined({ from: v.from }) };
    }
    case "doctor":
      return extra(args, "doctor") ?? {
        name: "doctor",
        permissions: v.permissions === true,
        ...(v.agent === undefined ? {} : { agent: v.agent }),
      };
  }
}
