/** Session builders and a corpus of sessions shared by the export tests. */
import type { Agent } from "../../schema/agent.ts";
import type { AgentSessionRecord } from "../../store/store.ts";
import type { SessionMessage } from "../../schema/message.ts";
import { rowKit } from "../_kit/rows.ts";

/** The fixed timestamp of built rows. */
export const AT = "2026-03-04T05:06:07.089Z";

/** A session row with every optional field absent unless given. */
export function record(
  overrides: Partial<AgentSessionRecord> = {},
): AgentSessionRecord {
  return {
    id: "0b5c1c2e-3a4f-4d6e-8f90-1a2b3c4d5e6f",
    agentSlug: "mini",
    context: { workingDir: "/w", fsScopeTier: "sandboxed" },
    status: "active",
    totalInputTokens: 10,
    totalOutputTokens: 5,
    totalCostMicrocents: 100,
    totalConservativeMicrocents: 0,
    createdAt: "2026-03-04T05:00:00.000Z",
    updatedAt: "2026-03-04T05:10:00.000Z",
    ...overrides,
  };
}

const kit = rowKit({
  sessionId: "0b5c1c2e-3a4f-4d6e-8f90-1a2b3c4d5e6f",
  timestamp: AT,
  argsBytes: 12,
  resultBytes: 140,
  replyModelId: "m-1",
});

/** A row of the corpus session (fixed timestamp). */
export const row = kit.row;
/** A user row with one text part. */
export const user = kit.user;
/** A terminal reply (model `m-1`). */
export const reply = kit.reply;
/** An assistant tool-round row: one call per `[slot, tool name]`. */
export const calls = kit.toolCalls;
/** A tool row with one result per slot. */
export const results = kit.results;
/** A boundary marker (`summary` undefined ⇒ a trim marker). */
export const marker = kit.marker;

/** An authored agent. */
export const MINI: Agent = {
  id: "mini",
  provider: "openai",
  model: "gpt-5.4-mini",
  system_prompt: "You are a terse assistant.",
  tools: ["read_file"],
};

/** One exported session of the corpus. */
export interface CorpusSession {
  /** What the session shows. */
  name: string;
  /** The session row. */
  record: AgentSessionRecord;
  /** Its stored rows (not necessarily sorted). */
  messages: SessionMessage[];
}

/** Sessions covering every mapping rule, used by the round-trip tests. */
export const CORPUS: CorpusSession[] = [
  {
    name: "plain two-turn chat",
    record: record({ title: "Hello there", agentSnapshot: MINI }),
    messages: [
      user(0, "Hello there"),
      reply(1, "Hi"),
      user(2, "Bye"),
      reply(
        3,
        "Bye!",
      ),
    ],
  },
  {
    name: "no rows, no title, no snapshot",
    record: record(),
    messages: [],
  },
  {
    name: "tools, preamble, unknown_tool, two calls in a round",
    record: record({ title: "Tools", agentSnapshot: MINI }),
    messages: [
      user(0, "Look around"),
      calls(1, 1, [[0, "read_file"], [1, "list_directory"]], "Let me look."),
      results(2, 1, [0, 1]),
      calls(3, 1, [[2, "unknown_tool"], [3, "read_file"], [
        4,
        "mcp_github_search",
      ]]),
      results(4, 1, [2, 3, 4]),
      reply(5, ""),
    ],
  },
  {
    name: "interrupted, legacy and compacted history, unsorted",
    record: record({ title: "2026-01-01", agentSnapshot: MINI }),
    messages: [
      reply(9, "B"),
      user(0, "legacy one"),
      user(1, "legacy {{two}}"),
      user(2, "a"),
      reply(3, "A"),
      user(4, "interrupted"),
      calls(5, 2, [[0, "read_file"]]),
      results(6, 2, [0]),
      marker(7, 3, "Summary: a → A"),
      user(8, "{{{b}}} {{secrets.key}}"),
      marker(10, 9),
      user(11, "trailing legacy"),
      user(12, "unanswered"),
    ],
  },
  {
    name: "awkward strings everywhere",
    record: record({
      title: "yes",
      agentSnapshot: {
        ...MINI,
        system_prompt: "null\n  indented: true\n# not a comment\n",
        temperature: 0.7,
        fallback_chain: [
          { model: "gpt-5.4-mini", provider: "openai", max_attempts: 1 },
        ],
        input_schema: { "10": "ten", "9": "nine", "": "empty", "~": null },
      },
    }),
    messages: [
      user(0, "true"),
      reply(1, "1.0"),
      user(2, " leading space\nand a tab\there\n\n"),
      reply(3, "0o17 0x1F 1e3 .inf ~ null"),
      user(4, "ctrl \u0001 lone \ud800 nbsp\u00a0 ls\u2028 emoji 🎉"),
      reply(5, "---\n...\n%YAML 1.1\n- item\n? key\n: value"),
      user(6, "'single' \"double\" `back` & * ! | > @ %"),
      reply(7, "trailing spaces   \n   \n"),
    ],
  },
];
