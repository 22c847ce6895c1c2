/**
 * Help pages, one per command plus the overview. Plain constants: loading
 * this module costs nothing (`--help` imports no zod, YAML or SQLite).
 *
 * @module
 */
import type { HelpTopic } from "./args.ts";

const GLOBAL_FLAGS = `Global flags (valid anywhere on the line):
  --json              machine output: NDJSON events / JSON records on stdout
  --cwd <dir>         run as if started in <dir>
  --config <path>     use <path> instead of the global config.toml
  --color, --no-color force colour on or off (else NO_COLOR / FORCE_COLOR)
  -v, --verbose       more diagnostics on stderr
  -q, --quiet         fewer notices on stderr (not with -v)
  -V, --version       print the version
  -h, --help          print help (also per command: relavium <command> -h)
`;

const PAGES: Readonly<Record<HelpTopic, string>> = {
  main: `relavium: line-oriented agent chat sessions

Usage: relavium <command> [flags]

Commands:
  chat                start a chat session (stdin lines are messages)
  chat-resume <id>    resume a stored session (or --last)
  chat-list           list stored sessions, newest first
  chat-show <id>      print a stored session's transcript and totals
  chat-delete <id>    delete a stored session (asks, or --yes)
  chat-release <id>   release a session's stuck writer lease
  chat-export <id>    write a session as a .relavium.yaml workflow scaffold
  agent run [<agent>] [<prompt>]
                      run one turn (prompt as argument or on stdin)
  config path|show    print config file locations / resolved values
  doctor              check config, provider keys (and --permissions)
  trust [<file>]      trust a project config file's exact content
  mcp list            connect the MCP servers and list their tools
  serve               serve sessions over HTTP (REST, event streams, a page)
  store migrate-to-postgres
                      copy every session of history.db into Postgres

${GLOBAL_FLAGS}
Exit codes: 0 success, 1 turn error or failure, 2 invalid invocation,
4 interactive chat ended, 130/143 interrupted.
`,
  chat:
    `Usage: relavium chat [--agent <path|id>] [--model <id> [--provider <id>]]
                     [--fixture <cassette> | --record <cassette>]
                     [--mode <mode>]

Start a persisted chat session. Each stdin line is one message; end of
input, /exit or /cancel ends the chat. On a terminal that exits 4; piped,
in CI or under --json it exits 0 when every turn succeeded, 1 when any
failed.

Flags:
  --agent <path|id>   agent file (path, or *.yaml) or id in .relavium/agents/
                      (default: the built-in read-only chat agent)
  --model <id>        replace the agent's model (drops its fallback chain)
  --provider <id>     provider of --model when it cannot be inferred
  --fixture <file>    replay a recorded cassette instead of calling a provider
  --record <file>     record every provider call as a v1.1 cassette that
                      --fixture replays offline (not with --fixture); it
                      holds the conversation's text (user data: review it
                      before committing), never a key
  --mode <mode>       approval mode: ask (default), plan, accept-edits, auto

${GLOBAL_FLAGS}`,
  "chat-resume": `Usage: relavium chat-resume (<id> | --last)
                            [--fixture <cassette> | --record <cassette>]
                            [--mode <mode>]

Resume a stored session with its stored agent and context. Only the text
of earlier turns is carried over; earlier tool calls and file contents are
not. <id> may be a unique prefix of the id (at least 4 characters); an
ambiguous one exits 2 listing the sessions it matches. The banner names
the folder the session works in and counts its completed turns; on a
terminal the last two exchanges follow, shortened.

Flags:
  --last              resume this project's most recently updated session
                      with a completed turn (else the newest of any folder,
                      said so)
  --fixture <file>    replay a recorded cassette instead of calling a provider
  --record <file>     record every provider call as a v1.1 cassette that
                      --fixture replays offline (not with --fixture); it
                      holds the conversation's text (user data: review it
                      before committing), never a key
  --mode <mode>       approval mode: ask (default), plan, accept-edits, auto

${GLOBAL_FLAGS}`,
  "chat-list": `Usage: relavium chat-list [--here]

List stored sessions of every folder, newest first:
  <short id>  <when>  <N turns>  <folder>  <agent>  "<title>"
The short id is a unique prefix every command accepts. Turns are
completed turns (an answer stored), as chat-show and chat-resume count
them. Sessions that never reached a provider (no turn, nothing spent)
are not listed; one whose turns all failed is listed with 0 turns.
With --json, one record per line:
  {sessionId, agentSlug, title, status, modelId, createdAt, updatedAt,
   totalCostMicrocents, unaccountedCalls, folder, turns}

Flags:
  --here              only this project's sessions (its root and below)

${GLOBAL_FLAGS}`,
  "chat-show": `Usage: relavium chat-show <id>

Print a stored session: each turn's text and tool names, every
compaction or trim boundary (what the model no longer sees, and the
summary it sees instead), totals and cost per model. An unknown id exits 2.
<id> may be a unique prefix of the id (at least 4 characters); an
ambiguous one exits 2 listing the sessions it matches.

${GLOBAL_FLAGS}`,
  "chat-delete": `Usage: relavium chat-delete <id> [--yes]

Delete a stored session (hidden from chat-list and chat-resume). Asks for
confirmation on a terminal; elsewhere --yes is required. <id> may be a
unique prefix of the id (at least 4 characters); an ambiguous one exits 2
listing the sessions it matches.

Flags:
  --yes               delete without asking

${GLOBAL_FLAGS}`,
  "chat-release": `Usage: relavium chat-release <id> [--force]

Release a session's writer lease that no chat will release: its holder is
gone but the lease does not expire (a heartbeat dated in the future, a
damaged lease row, a holder on another host). Prints what it released
(process, host, since when). A lease that looks live (a running process
of this host, or a heartbeat less than a minute old) is refused (exit 2)
unless --force: that chat then can no longer write the session. <id> may
be a unique prefix of the id (at least 4 characters).

Flags:
  --force             release a lease that looks live

${GLOBAL_FLAGS}`,
  "chat-export": `Usage: relavium chat-export <id> [--out <path>] [--force]

Write a stored session as a workflow scaffold, by default to
<id>.relavium.yaml in the current folder, and mark the session exported.
A review notice is always printed on stderr: the file is a scaffold, not a
replay, and holds the conversation's text unredacted. With --json, stdout
carries one session:exported event. An unknown id, or an existing file
without --force, exits 2 and writes nothing. <id> may be a unique prefix
of the id (at least 4 characters); an ambiguous one exits 2 listing the
sessions it matches.

Flags:
  --out <path>        write here instead (relative to the current folder;
                      missing folders are created)
  --force             replace an existing file

${GLOBAL_FLAGS}`,
  "agent-run":
    `Usage: relavium agent run [<agent>] [<prompt>] [--output text|json]
                          [--fixture <cassette> | --record <cassette>]
                          [--mode <mode>] [--model <id> [--provider <id>]]

Run one turn of <agent> (a file path, or an id in .relavium/agents/; none:
the built-in read-only chat agent). The prompt is <prompt>, else all of
stdin; with both, piped stdin follows <prompt> after a blank line. A lone
argument is the agent when it is a path or one kebab-case word, else the
prompt. Nothing is stored. Exit 0 when the turn succeeds, 1 when it
fails, 2 for bad input (e.g. an empty prompt).

Flags:
  --output <format>   text (default): the answer streamed on stdout;
                      json: one final record on stdout (answer, stopReason,
                      usage, cost, sessionId, model); not with --json
  --fixture <file>    replay a recorded cassette instead of calling a provider
  --record <file>     record every provider call as a v1.1 cassette that
                      --fixture replays offline (not with --fixture); it
                      holds the conversation's text (user data: review it
                      before committing), never a key
  --mode <mode>       approval mode: ask (default), plan, accept-edits, auto
                      (only auto approves governed actions without a person)
  --model <id>        replace the agent's model (drops its fallback chain)
  --provider <id>     provider of --model when it cannot be inferred
  --input <k=v>       reserved (exit 2)

${GLOBAL_FLAGS}`,
  config: `Usage: relavium config path
       relavium config show

path   print the config files (global, workspace, project) and history.db
show   print every resolved setting with the layer it came from

Layers, last wins: global config.toml (or --config), <project>/.relavium/
workspace.toml, <project>/.relavium/project.toml. RELAVIUM_HOME replaces
~/.relavium. A project file you have not trusted (relavium trust) may only
narrow: show lists the keys it ignores.

${GLOBAL_FLAGS}`,
  doctor: `Usage: relavium doctor [--permissions [--agent <path|id>]]

Check that the config loads, which provider keys are present (never
their values), where each provider's requests go (its base URL) and that
each MCP server connects (its stderr tail when it does not). Exit 1 when
something needs fixing.

Flags:
  --permissions       also print least-privilege deno run / deno compile
                      flags for this folder, config and MCP servers
  --agent <path|id>   the agent whose tools and MCP servers are checked
                      (default: the built-in chat agent's tools and every
                      enabled server of the global config)

${GLOBAL_FLAGS}`,
  mcp: `Usage: relavium mcp list [--agent <path|id>]

Connect the MCP servers and list each one's state and tools (their
mcp_<server>_<tool> ids). Without --agent: every enabled server of
[[mcp_servers]] in the global config; with it, the servers that agent
names, as a session would start them (an inline stdio server that is not
approved is listed as such). Exit 1 when a server cannot be used.

Flags:
  --agent <path|id>   the agent whose servers to list

${GLOBAL_FLAGS}`,
  serve: `Usage: relavium serve [--host <address>] [--port <port>]

Serve sessions over HTTP: REST under /v1, one resumable server-sent event
stream per session, and a page at /. The first stdout line is
"Listening on http://<host>:<port>" (with --port 0, the port chosen); the
second is the token when one was generated. SIGINT or SIGTERM stops it:
running turns end, leases are released, exit 0.

Flags:
  --host <address>    address to bind (default [serve] host, else
                      127.0.0.1); another than loopback needs a token
                      from [serve] token_env
  --port <port>       port (default [serve] port, else 4780; 0: any)

${GLOBAL_FLAGS}`,
  store: `Usage: relavium store migrate-to-postgres [--from <path>]

Copy every session of history.db (soft-deleted ones too) into the Postgres
whose URL is in [store] url_env (default RELAVIUM_PG_URL), row for row:
ids, times, totals, costs, boundaries, turns used, the usage journal. Each
session is one transaction. A session already there with the same rows is
skipped; one there with other rows is named and left as it is. Then each
copy is verified: its rows, and its export's bytes from both stores.
Prints "copied N, skipped M, verified K" (with --json, one record). Exit 1
when a session was not copied or not verified, or a store cannot be
opened.

Flags:
  --from <path>       the history.db to copy (default the CLI's own)

${GLOBAL_FLAGS}`,
  trust: `Usage: relavium trust [<file>]

Trust the exact content of a project config file (default: the project's
.relavium/workspace.toml and project.toml). Until then such a file may only
narrow your settings: its allowlist entries, raised caps, looser modes,
[[providers]] and default model are ignored, with one notice. The trust is
a SHA-256 of the file's bytes in <RELAVIUM_HOME>/trusted.json: any change
to the file needs trust again.

Given an agent file (*.yaml), approve the MCP stdio servers it writes
inline: their exact command, arguments and environment names, recorded the
same way. Until then they are not started.

${GLOBAL_FLAGS}`,
};

/**
 * The help page of a topic, naming the command as the person ran it.
 *
 * @param topic `main` or a command.
 * @param program How the CLI was invoked (default `relavium`), e.g.
 * `deno run -A cli.ts`: it replaces `relavium` in the usage lines, whose
 * continuation lines keep their alignment.
 * @returns The page, ending with a newline.
 */
export function helpText(topic: HelpTopic, program = "relavium"): string {
  const page = PAGES[topic];
  if (program === "relavium") return page;
  const shift = " ".repeat(Math.max(0, program.length - "relavium".length));
  return page.replace(/(?<![\w./~])relavium(?= [a-z<])/g, () => program)
    .replace(/^( {15,}\[)/gm, `${shift}$1`);
}
