/**
 * The CLI entry point as a function: `main(argv, io)` parses the line,
 * answers `--help`/`--version` itself, loads the one command module it
 * needs (string-literal dynamic imports) and turns faults
 * into their printed form and exit code. Tests drive it in-process.
 *
 * A lone `--version`/`-V`/`--help`/`-h` is answered before the argument
 * parser and the command context load.
 *
 * @module
 */
import type { CliCommand } from "./args.ts";
import { resolveColor } from "./io/color.ts";
import type { CommandEnv, CommandResult } from "./command_env.ts";
import type { CliFault } from "./fault.ts";
import type { CliIo } from "./io/io.ts";
import { VERSION } from "./version.ts";

function colorFlagOf(argv: readonly string[]): boolean | undefined {
  let flag: boolean | undefined;
  for (const a of argv) {
    if (a === "--") break;
    if (a === "--color") flag = true;
    if (a === "--no-color") flag = false;
  }
  return flag;
}

/**
 * Prints a fault and answers its exit code. The printer (with the secret
 * screen it redacts with) loads on this path only: a command that succeeds
 * without one never loads it.
 */
async function printFault(
  io: CliIo,
  f: CliFault,
  options: { json: boolean; color: boolean },
): Promise<number> {
  return (await import("./io/fault_line.ts")).printFault(io, f, options);
}

async function dispatch(
  command: CliCommand,
  ctx: CommandEnv,
): Promise<CommandResult> {
  switch (command.name) {
    case "chat-list":
      return (await import("./commands/chat_list.ts")).runChatList(
        command,
        ctx,
      );
    case "chat-show":
      return (await import("./commands/chat_show.ts")).runChatShow(
        command,
        ctx,
      );
    case "chat-delete":
      return (await import("./commands/chat_delete.ts")).runChatDelete(
        command,
        ctx,
      );
    case "chat-release":
      return (await import("./commands/chat_release.ts")).runChatRelease(
        command,
        ctx,
      );
    case "chat-export":
      return (await import("./commands/chat_export.ts")).runChatExport(
        command,
        ctx,
      );
    case "config-path":
    case "config-show":
      return (await import("./commands/config.ts")).runConfig(command, ctx);
    case "doctor":
      return (await import("./commands/doctor.ts")).runDoctor(command, ctx);
    case "trust":
      return (await import("./commands/trust.ts")).runTrust(command, ctx);
    case "mcp-list":
      return (await import("./commands/mcp.ts")).runMcpList(command, ctx);
    case "chat":
      return (await import("./commands/chat.ts")).runChat(command, ctx);
    case "chat-resume":
      return (await import("./commands/chat_resume.ts")).runChatResume(
        command,
        ctx,
      );
    case "agent-run":
      return (await import("./commands/agent_run.ts")).runAgentRun(
        command,
        ctx,
      );
    case "serve":
      return (await import("./commands/serve.ts")).runServe(command, ctx);
    case "store-migrate":
      return (await import("./commands/store_migrate.ts")).runStoreMigrate(
        command,
        ctx,
      );
    default: {
      const never: never = command;
      return never;
    }
  }
}

/**
 * Runs the CLI.
 *
 * @param argv The arguments after the program name.
 * @param io The world (streams, env, cwd, terminal flags, signals).
 * @returns The exit code: 0 success, 1 failure, 2 invalid invocation,
 * 4 chat ended, 130/143 interrupted.
 */
export async function main(
  argv: readonly string[],
  io: CliIo,
): Promise<number> {
  if (argv.length === 1) {
    // Exactly what parseCliArgs answers for these lines, without loading it.
    const only = argv[0];
    if (only === "--version" || only === "-V") {
      io.stdout.write(`${VERSION}\n`);
      return 0;
    }
    if (only === "--help" || only === "-h") {
      const { helpText } = await import("./help.ts");
      io.stdout.write(helpText("main", io.invocation?.()));
      return 0;
    }
  }
  const { parseCliArgs } = await import("./args.ts");
  const parsed = parseCliArgs(argv);
  if (!parsed.ok) {
    const { json, topic, message } = parsed.error;
    const color = resolveColor(colorFlagOf(argv), {
      env: (n) => io.env(n),
      isTerminal: io.stderrIsTerminal === true,
    });
    const code = await printFault(io, { code: "usage", message }, {
      json,
      color,
    });
    if (!json) {
      const cmd = topic === "main"
        ? ""
        : `${topic === "agent-run" ? "agent run" : topic} `;
      io.stderr.write(
        `Run '${io.invocation?.() ?? "relavium"} ${cmd}--help' for usage\n`,
      );
    }
    return code;
  }
  const p = parsed.value;
  if (p.kind === "help") {
    const { helpText } = await import("./help.ts");
    io.stdout.write(helpText(p.topic, io.invocation?.()));
    return 0;
  }
  if (p.kind === "version") {
    io.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const { globals, command } = p;
  const color = resolveColor(globals.color, {
    env: (n) => io.env(n),
    isTerminal: io.stderrIsTerminal === true,
  });
  const out = { json: globals.json, color };
  try {
    const { effectiveCwd } = await import("./command_env.ts");
    const cwd = await effectiveCwd(io, globals.cwd);
    if (!cwd.ok) return await printFault(io, cwd.error, out);
    const result = await dispatch(command, {
      io,
      globals,
      color,
      cwd: cwd.value,
    });
    return typeof result === "number"
      ? result
      : await printFault(io, result, out);
  } catch (e) {
    // A store fault a person can act on (a full disk, a lost lease) is named.
    const { storeFaultMessage } = await import("../store/sqlite_file.ts");
    const named = storeFaultMessage(e);
    if (named !== undefined) {
      return printFault(io, { code: "internal", message: named }, out);
    }
    const detail = globals.verbose && e instanceof Error
      ? `: ${e.name}: ${e.message}`
      : e instanceof Error
      ? `: ${e.name}`
      : "";
    return printFault(
      io,
      { code: "internal", message: `Internal error${detail}` },
      out,
    );
  }
}
