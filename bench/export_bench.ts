/**
 * Export of a 1,000-turn session: `sessionToWorkflow` + `stringifyWorkflow`
 * (target < 100 ms), and each half on its own.
 *
 *   deno bench bench/export_bench.ts
 *
 * Run as a script (`deno run bench/export_bench.ts`) it prints the median,
 * minimum and 90th percentile of 40 timed exports in one process after 20
 * warm-up runs: steadier than `deno bench` on a shared machine.
 *
 * Every third turn has a tool round with two calls (assistant row with a
 * preamble + tool row), so the session holds 2,666 rows; user text is
 * ~200 characters, replies ~500 characters over several lines.
 */
import type { WorkflowDocument } from "../export/document.ts";
import { sessionToWorkflow } from "../export/workflow.ts";
import { stringifyWorkflow } from "../export/yaml.ts";
import type { SessionMessage } from "../schema/message.ts";
import type { AgentSessionRecord } from "../store/store.ts";

const TURNS = 1000;
const SESSION_ID = "0b5c1c2e-3a4f-4d6e-8f90-1a2b3c4d5e6f";
const AT = "2026-03-04T05:06:07.089Z";

function buildSession(): {
  record: AgentSessionRecord;
  messages: SessionMessage[];
} {
  const messages: SessionMessage[] = [];
  let seq = 0;
  const push = (
    role: SessionMessage["role"],
    content: SessionMessage["content"],
  ): void => {
    messages.push({
      id: `m-${seq}`,
      sessionId: SESSION_ID,
      sequenceNumber: seq,
      role,
      content,
      timestamp: AT,
      ...(role === "assistant" ? { modelId: "gpt-5.4-mini" } : {}),
    });
    seq++;
  };
  for (let turn = 1; turn <= TURNS; turn++) {
    push("user", [{
      type: "text",
      text: `Turn ${turn}: please look at src/file_${turn}.ts and explain ` +
        "what the {{template}} helper does, whether it is safe: yes/no? " +
        "Keep it short, cite lines, and mention any edge cases you see.",
    }]);
    if (turn % 3 === 0) {
      push("assistant", [
        { type: "text", text: "Let me read the files first." },
        {
          type: "tool_call",
          id: `session-tool:${turn}:0`,
          name: "read_file",
          argsBytes: 32,
        },
        {
          type: "tool_call",
          id: `session-tool:${turn}:1`,
          name: "list_directory",
          argsBytes: 18,
        },
      ]);
      push("tool", [
        {
          type: "tool_result",
          toolCallId: `session-tool:${turn}:0`,
          resultBytes: 2048,
          outcome: "ok",
        },
        {
          type: "tool_result",
          toolCallId: `session-tool:${turn}:1`,
          resultBytes: 512,
          outcome: "ok",
        },
      ]);
    }
    push("assistant", [{
      type: "text",
      text: `Answer ${turn}:\n` +
        "- The helper renders a template: it replaces placeholders.\n" +
        "- It is safe: inputs are escaped before rendering.\n" +
        "  Edge case: an empty string returns early (line 12).\n".repeat(6),
    }]);
  }
  const record: AgentSessionRecord = {
    id: SESSION_ID,
    agentSlug: "mini",
    agentSnapshot: {
      id: "mini",
      model: "gpt-5.4-mini",
      provider: "openai",
      system_prompt: "You are a terse assistant.",
      tools: ["read_file", "list_directory"],
    },
    title: "Turn 1: please look at src/file_1.ts…",
    context: { workingDir: "/work", fsScopeTier: "sandboxed" },
    status: "active",
    totalInputTokens: 0,
    totalOutputTokens: 0,
    totalCostMicrocents: 0,
    totalConservativeMicrocents: 0,
    createdAt: "2026-03-04T05:00:00.000Z",
    updatedAt: AT,
  };
  return { record, messages };
}

const { record, messages } = buildSession();
const doc: WorkflowDocument = sessionToWorkflow(record, messages);

Deno.bench({
  name: "export 1,000 turns: sessionToWorkflow + stringifyWorkflow",
  baseline: true,
  fn(): void {
    stringifyWorkflow(sessionToWorkflow(record, messages));
  },
});

Deno.bench("sessionToWorkflow, 1,000 turns", (): void => {
  sessionToWorkflow(record, messages);
});

Deno.bench("stringifyWorkflow, 1,000 turns", (): void => {
  stringifyWorkflow(doc);
});

if (import.meta.main) {
  const run = (): string =>
    stringifyWorkflow(sessionToWorkflow(record, messages));
  for (let i = 0; i < 20; i++) run();
  const times: number[] = [];
  for (let i = 0; i < 40; i++) {
    const start = performance.now();
    run();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const ms = (i: number): string => `${(times[i] ?? NaN).toFixed(1)} ms`;
  const bytes = new TextEncoder().encode(run()).length;
  Deno.stdout.writeSync(
    new TextEncoder().encode(
      `export of ${TURNS} turns (${messages.length} rows, ${bytes} bytes of YAML): ` +
        `median ${ms(20)}, min ${ms(0)}, p90 ${ms(36)}\n`,
    ),
  );
}
