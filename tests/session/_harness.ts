/** Shared set-up for engine tests: a session wired to fakes. */
import { split } from "../_kit/session_parts.ts";
import type { Agent } from "../../schema/agent.ts";
import type { ResumeState } from "../../schema/resume.ts";
import type { SessionEvent, SessionEventDraft } from "../../schema/event.ts";
import type { LlmError, StreamChunk } from "../../llm/chunk.ts";
import type { LlmProvider } from "../../llm/provider.ts";
import { createScriptedProvider } from "../../llm/scripted_provider.ts";
import type { SessionDeps } from "../../session/deps.ts";
import { createEventStamper } from "../../session/events.ts";
import { AgentSession } from "../../session/session.ts";
import type { FinishedWork } from "../../session/finished_work.ts";
import type { TurnCommit } from "../../store/store.ts";
import type { ToolRegistry } from "../../tools/registry.ts";
import { sequentialIds, steppingClock } from "../_fakes/clock.ts";
import {
  allBuiltinTools,
  createDenoPermissionQuery,
  createDenoToolEffects,
  createToolRegistry,
} from "../../mod.ts";
import type {
  ScopedToolRegistry,
  ToolDefinition,
  ToolRegistryOptions,
} from "../../tools/mod.ts";

export const AGENT: Agent = {
  id: "helper",
  model: "gpt-5.4-mini",
  provider: "openai",
  system_prompt: "You help.",
  tools: ["read_file", "list_directory"],
};

/** A resumed history with no messages, turns or spend. */
export const EMPTY_RESUME: ResumeState = {
  messages: [],
  completedTurnSpans: [],
  turnCount: 0,
  cumulativeCostMicrocents: 0,
  conservativeCostMicrocents: 0,
};

/**
 * A session resumed over fakes: `deps` over quiet defaults (no provider,
 * no sleep), `state` over an empty history. Unless `deps.emit` is given,
 * stamped events land in `events`.
 */
export function resumedSession(options: {
  agent?: Agent;
  deps?: Partial<SessionDeps>;
  state?: Partial<ResumeState>;
} = {}): { session: AgentSession; events: SessionEvent[] } {
  const events: SessionEvent[] = [];
  const agent = options.agent ?? AGENT;
  const session = AgentSession.resume({
    sessionId: "s1",
    agentRef: agent.id,
    agent,
    context: { workingDir: "/w", fsScopeTier: "sandboxed" },
    ...split({
      clock: steppingClock(),
      ids: sequentialIds(),
      resolveProvider: () => undefined,
      keyFor: () => "k",
      sleep: () => Promise.resolve(),
      emit: createEventStamper({
        sessionId: "s1",
        clock: steppingClock(),
        deliver: (e) => events.push(e),
      }),
      ...options.deps,
    }),
  }, { ...EMPTY_RESUME, ...options.state });
  return { session, events };
}

/** A text reply chunk list. */
export function reply(text: string, input = 10, output = 2): StreamChunk[] {
  return [
    ...(text === "" ? [] : [{ type: "text_delta" as const, text }]),
    {
      type: "stop",
      stopReason: "stop",
      usage: { inputTokens: input, outputTokens: output },
    },
  ];
}

/** A provider error answer from `openai` (not retryable unless said). */
export function failure(
  error: Pick<LlmError, "kind" | "message"> & Partial<LlmError>,
): StreamChunk[] {
  return [{
    type: "error",
    error: { retryable: false, provider: "openai", ...error },
  }];
}

/** A tool-call response. */
export function toolCall(
  id: string,
  name: string,
  args: unknown,
): StreamChunk[] {
  return [
    { type: "tool_call_start", id, name },
    { type: "tool_call_delta", id, argsJsonDelta: JSON.stringify(args) },
    { type: "tool_call_end", id },
    {
      type: "stop",
      stopReason: "tool_use",
      usage: { inputTokens: 5, outputTokens: 3 },
    },
  ];
}

export interface Harness {
  session: AgentSession;
  events: SessionEvent[];
  /** Every piece of finished work the session handed over, in order. */
  committed: FinishedWork[];
  /** The newest completed turn handed over, if any. */
  lastTurn(): TurnCommit | undefined;
  types(): string[];
  provider: ReturnType<typeof createScriptedProvider>;
}

/** Builds a started session over a scripted provider. */
export function harness(options: {
  script: Parameters<typeof createScriptedProvider>[0]["script"];
  agent?: Agent;
  tools?: ToolRegistry;
  deps?: Partial<SessionDeps>;
  onEvent?: (e: SessionEvent, s: AgentSession) => void;
  provider?: LlmProvider;
  start?: boolean;
}): Harness {
  const provider = createScriptedProvider({
    id: "openai",
    script: options.script,
  });
  const events: SessionEvent[] = [];
  const committed: FinishedWork[] = [];
  const ref: { session?: AgentSession } = {};
  const emit: (d: SessionEventDraft) => void = createEventStamper({
    sessionId: "s1",
    clock: steppingClock(),
    deliver: (e) => {
      events.push(e);
      if (ref.session !== undefined) options.onEvent?.(e, ref.session);
    },
  });
  const session = new AgentSession({
    sessionId: "s1",
    agentRef: (options.agent ?? AGENT).id,
    agent: options.agent ?? AGENT,
    context: { workingDir: "/work", fsScopeTier: "sandboxed" },
    ...split({
      clock: steppingClock(),
      ids: sequentialIds(),
      resolveProvider: (id) =>
        id === "openai" ? (options.provider ?? provider) : undefined,
      keyFor: () => "test-key",
      sleep: () => Promise.resolve(),
      emit,
      commit: (work) => committed.push(work),
      ...(options.tools === undefined ? {} : { tools: options.tools }),
      ...options.deps,
    }),
  });
  ref.session = session;
  if (options.start !== false) session.start();
  return {
    session,
    events,
    committed,
    lastTurn() {
      for (let i = committed.length - 1; i >= 0; i--) {
        const w = committed[i];
        if (w?.kind === "turn") return w.turn;
      }
      return undefined;
    },
    types: () => events.map((e) => e.type),
    provider,
  };
}

/**
 * The built-in tools (and `extra`) on the real Deno effects and
 * permissions, sandboxed in `ws`: a registry as a library script wires
 * it, through the package's entry points.
 */
export function denoTools(
  ws: string,
  options: {
    extra?: readonly ToolDefinition<unknown>[];
    guardrails?: ToolRegistryOptions["guardrails"];
  } = {},
): ScopedToolRegistry {
  return createToolRegistry({
    tools: [...allBuiltinTools(), ...(options.extra ?? [])],
    host: createDenoToolEffects(),
    context: { workingDir: ws, fsScopeTier: "sandboxed" },
    permissions: createDenoPermissionQuery(),
    ...(options.guardrails === undefined
      ? {}
      : { guardrails: options.guardrails }),
  });
}
