/**
 * Pipeline steps 4 (the `git_commit`-style gate) and 5 (approval of
 * governed actions through the turn policy). A policy verdict decides
 * without a prompt; else `agent:approval_requested` is emitted and
 * `confirm` asks a person. No turn policy is `ask` with no approver:
 * every governed action is refused `no_approval_hook` (safe by default;
 * unattended use is an explicit policy or mode). All denials are fatal
 * `tool_denied`.
 *
 * @module
 */
import type { GovernedAction } from "../schema/event.ts";
import { raceAbort } from "./_abort.ts";
import {
  cancelledOutcome,
  deniedOutcome,
  fatalOutcome,
  type OutcomeBase,
} from "./outcomes.ts";
import type {
  ApprovalDecision,
  ApprovalRequest,
  PolicyVerdict,
  ToolDispatchContext,
  ToolOutcome,
  TurnPolicy,
} from "./registry.ts";
import type { PolicyTarget } from "./tool.ts";
import type { ToolEffects } from "./effects.ts";
import {
  isWithin,
  joinPath,
  relativeSlash,
  segmentsOf,
} from "./sandbox/_path.ts";
import { isProtectedPath, isSensitivePath } from "./sandbox/floors.ts";
import type { LexicalTarget, ScopePlan } from "./sandbox/fs_scope.ts";
import type { PermissionQuery } from "./sandbox/permission_query.ts";

/**
 * What the gate of a gated tool (`git_commit`) is shown.
 */
export interface GateRequest {
  /** The gated tool. */
  toolId: string;
  /** Sanitised effective args (for `git_commit`: message and files). */
  details: Readonly<Record<string, unknown>>;
  /** Aborts with the turn. */
  signal: AbortSignal;
}

/**
 * Asks for an explicit per-call yes; never cached, in every mode.
 */
export type GateHook = (request: GateRequest) => Promise<boolean>;

/**
 * Control characters become spaces; nothing is cut: what is approved is
 * shown whole (the prompt wraps it).
 */
function visible(text: string): string {
  // deno-lint-ignore no-control-regex
  return text.replace(/[\u0000-\u001f\u007f]/g, " ");
}

/**
 * One argument as a person reads it: bare when plain, else quoted so that
 * its bounds show (`'a b'`), control characters escaped (`"x\n--y"`).
 */
function shownToken(token: string): string {
  if (/^[A-Za-z0-9_./:=@%+,-]+$/.test(token)) return token;
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(token)) return JSON.stringify(token);
  return `'${token.replaceAll("'", "'\\''")}'`;
}

/** The path an approval shows, and whether the floor protects it. */
export interface ApprovalPath {
  /** The canonical target relative to its real root (absolute if outside). */
  path: string;
  /** The lexical or the real target is on the protected-write floor. */
  protectedPath: boolean;
  /** The regular file there now, if any (what a write replaces). */
  existing?: ExistingFile;
}

/** A write's current target, for the diff a person is shown. */
export interface ExistingFile {
  /** Its size in bytes. */
  bytes: number;
  /** Its text, when it is UTF-8 of at most {@linkcode DIFF_MAX_BYTES}. */
  text?: string;
}

/** Largest existing file whose text an approval reads for its diff. */
export const DIFF_MAX_BYTES = 65_536;

/**
 * The regular file at `path` (never throws; `undefined` when none). Its
 * text is read only when `readable` (inside a root, off the
 * sensitive-read floor): a target elsewhere shows its size alone.
 */
async function existingFile(
  host: ToolEffects,
  path: string,
  options: { signal: AbortSignal; readable: boolean },
): Promise<ExistingFile | undefined> {
  const { signal } = options;
  const stat = await host.stat(path).catch(() => undefined);
  if (stat === undefined || !stat.isFile) return undefined;
  if (stat.size > DIFF_MAX_BYTES || !options.readable) {
    return { bytes: stat.size };
  }
  try {
    const bytes = await host.readFile(path, {
      maxBytes: DIFF_MAX_BYTES,
      signal,
    });
    if (bytes.length > DIFF_MAX_BYTES || bytes.includes(0)) {
      return { bytes: stat.size };
    }
    const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return { bytes: bytes.length, text };
  } catch {
    return { bytes: stat.size };
  }
}

/**
 * The target of a write as it resolves now: the deepest existing
 * ancestor realpath'd, the missing segments appended, shown relative to
 * the real root holding it, with the regular file there now (its size,
 * and its text when it is small UTF-8 inside a root and off the
 * sensitive-read floor, for the diff a person is shown; never sent to the
 * model). Reads only under a granted read permission of the lexical root;
 * otherwise (or on any host error) the lexical target relative to its
 * root. Never throws.
 *
 * @param lexical The lexical check's target.
 * @param deps The scope, the effect host and the permission query.
 * @returns The path to show and its floor.
 */
export async function resolveApprovalPath(
  lexical: LexicalTarget,
  deps: {
    plan: ScopePlan;
    host: ToolEffects;
    permissions: PermissionQuery;
    signal?: AbortSignal;
  },
): Promise<ApprovalPath> {
  const { plan, host } = deps;
  const os = plan.os;
  const floor = { os, ownDirs: plan.ownDirs };
  const fallback: ApprovalPath = {
    path: relativeSlash(lexical.root, lexical.absolute, os),
    protectedPath: lexical.protectedPath,
  };
  if (deps.permissions({ name: "read", path: lexical.root }) !== "granted") {
    return fallback;
  }
  try {
    const missing: string[] = [];
    let probe = lexical.absolute;
    let real: string | undefined;
    // Bounded: one step per segment of the lexical target.
    for (let i = segmentsOf(probe, os).length; i >= 0; i--) {
      real = await host.realPath(probe).catch(() => undefined);
      if (real !== undefined || isWithin(lexical.root, probe, os)) break;
      missing.unshift(segmentsOf(probe, os).at(-1) ?? "");
      probe = joinPath(os, probe, "..");
    }
    if (real === undefined) return fallback;
    const target = joinPath(os, real, ...missing);
    const roots = await Promise.all(
      plan.roots.map((r) =>
        deps.permissions({ name: "read", path: r }) === "granted"
          ? host.realPath(r).catch(() => r)
          : r
      ),
    );
    const root = roots.find((r) => isWithin(target, r, os));
    const existing = missing.length > 0 ? undefined : await existingFile(
      host,
      target,
      {
        signal: deps.signal ?? new AbortController().signal,
        readable: root !== undefined && !isSensitivePath(target, floor),
      },
    );
    return {
      path: root === undefined ? target : relativeSlash(root, target, os),
      protectedPath: lexical.protectedPath || isProtectedPath(target, floor),
      ...(existing === undefined ? {} : { existing }),
    };
  } catch {
    return fallback;
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return "";
  }
}

/**
 * The secret-free preview of a governed action: `{path}` (the resolved
 * path when known), `{command}` (whole; from the argv when known, each
 * argument quoted where its bounds would not show), `{host}` (never a
 * full URL) or `{}`.
 */
export function approvalPreview(
  action: GovernedAction,
  target: PolicyTarget,
  resolved?: ApprovalPath,
): ApprovalRequest["preview"] {
  switch (action) {
    case "fs_write": {
      const path = resolved?.path ?? target.path;
      return path === undefined ? {} : { path: visible(path) };
    }
    case "process":
      if (target.argv !== undefined && target.argv.length > 0) {
        return { command: target.argv.map(shownToken).join(" ") };
      }
      return target.command === undefined
        ? {}
        : { command: visible(target.command) };
    case "egress": {
      const host = target.url === undefined ? "" : hostOf(target.url);
      // An MCP call names its server, tool and arguments.
      const command = target.command === undefined
        ? {}
        : { command: visible(target.command) };
      return host === "" ? command : { host, ...command };
    }
    case "os":
      return {};
    default: {
      const never: never = action;
      return never;
    }
  }
}

/** No turn policy: no verdict and nobody to ask, so governed actions are refused. */
const NO_POLICY: TurnPolicy = Object.freeze({});

interface GovernedInput {
  base: OutcomeBase;
  action: GovernedAction;
  target: PolicyTarget;
  protectedPath: boolean;
  /** The turn policy; absent is `ask` with no approver. */
  policy: TurnPolicy | undefined;
  ctx: Omit<ToolDispatchContext, "granted">;
  oneOff?: boolean;
  /** A person approved this very call at its gate: a pending ask is a yes. */
  gated?: boolean;
  /**
   * A write's target as it resolves (see `resolveApprovalPath`), called
   * only when a person is about to be asked.
   */
  resolve?: () => Promise<ApprovalPath>;
}

function approvalRequest(
  input: GovernedInput,
  resolved?: ApprovalPath,
): ApprovalRequest {
  const { base, action } = input;
  const preview = approvalPreview(action, input.target, resolved);
  const blank = !Object.values(preview).some((v) => v !== "");
  const protectedPath = input.protectedPath ||
    resolved?.protectedPath === true;
  const requested = input.target.path;
  const content = input.target.content;
  const url = input.target.url;
  return {
    toolId: base.toolId,
    action,
    preview,
    ...(action !== "fs_write" || content === undefined ? {} : {
      write: {
        content: content.text,
        append: content.append,
        ...(resolved?.existing === undefined
          ? {}
          : { existing: resolved.existing }),
      },
    }),
    ...(action === "egress" && url !== undefined ? { url: visible(url) } : {}),
    cacheable: !blank && !protectedPath && input.oneOff !== true &&
      input.target.uncacheable !== true,
    protectedPath,
    ...(requested !== undefined && preview.path !== undefined &&
        requested !== preview.path
      ? { requestedPath: visible(requested) }
      : {}),
    signal: input.ctx.signal,
  };
}

/**
 * Step 5: `undefined` when approved, else the fatal outcome. `oneOff`
 * (a user's `!` command) makes the request non-cacheable: no `always`
 * answer is offered, and none recorded for the model applies. A person
 * is shown a write's target as it resolves, flagged when protected.
 */
export async function approveGoverned(
  input: GovernedInput,
): Promise<ToolOutcome | undefined> {
  const { base, action, ctx } = input;
  const policy: TurnPolicy = input.policy ?? NO_POLICY;
  let request = approvalRequest(input);
  const { protectedPath } = request;
  let verdict: PolicyVerdict | undefined;
  try {
    verdict = policy.decide?.(request);
  } catch {
    return deniedOutcome(base, "approval_error", "the approval policy failed");
  }
  // A protected-path write always needs a person: no verdict approves it,
  // and without an interactive approver it is denied.
  if (protectedPath && verdict?.approve !== false) {
    if (!ctx.interactive) {
      return fatalOutcome(
        base,
        "tool_denied",
        "Tool call denied: a protected-path write needs interactive approval",
      );
    }
    verdict = undefined;
  }
  if (verdict === undefined && input.gated === true) return undefined;
  if (verdict !== undefined) {
    if (verdict.approve) return undefined;
    return verdict.noApprover === true
      ? deniedOutcome(base, "no_approval_hook", verdict.reason)
      : fatalOutcome(
        base,
        "tool_denied",
        `Tool call denied: ${verdict.reason}`,
      );
  }
  if (policy.confirm === undefined) {
    return deniedOutcome(
      base,
      "no_approval_hook",
      "governed actions need an approval hook",
    );
  }
  if (input.resolve !== undefined) {
    request = approvalRequest(input, await input.resolve());
  }
  ctx.emitApproval({ toolId: base.toolId, action, preview: request.preview });
  let decision: ApprovalDecision | undefined;
  try {
    const raced = await raceAbort(
      Promise.resolve().then(() => policy.confirm?.(request)),
      ctx.signal,
    );
    if (raced.aborted) return cancelledOutcome(base);
    decision = raced.value;
  } catch {
    if (ctx.signal.aborted) return cancelledOutcome(base);
    return deniedOutcome(base, "approval_error", "the approval hook failed");
  }
  if (ctx.signal.aborted) return cancelledOutcome(base);
  if (decision === "once" || decision === "always") return undefined;
  if (decision === "reject") {
    return deniedOutcome(base, "user_rejected", "rejected by the user");
  }
  return deniedOutcome(
    base,
    "approval_error",
    "the approval hook gave no decision",
  );
}

/**
 * Step 4's gate: `undefined` when a person said yes for this call, else
 * the fatal outcome (`gate_required` when nobody can be asked or the turn
 * policy hides the tool).
 */
export async function passGate(input: {
  base: OutcomeBase;
  gate: GateHook | undefined;
  ctx: ToolDispatchContext;
}): Promise<ToolOutcome | undefined> {
  const { base, gate, ctx } = input;
  const hidden = ctx.policy?.advertise?.(base.toolId) === false;
  if (gate === undefined || !ctx.interactive || hidden) {
    return deniedOutcome(
      base,
      "gate_required",
      `${base.toolId} needs an explicit per-call approval, unavailable here`,
    );
  }
  try {
    const raced = await raceAbort(
      Promise.resolve().then(() =>
        gate({
          toolId: base.toolId,
          details: base.displayInput,
          signal: ctx.signal,
        })
      ),
      ctx.signal,
    );
    if (raced.aborted || ctx.signal.aborted) return cancelledOutcome(base);
    return raced.value === true
      ? undefined
      : deniedOutcome(base, "user_rejected", "rejected by the user");
  } catch {
    if (ctx.signal.aborted) return cancelledOutcome(base);
    return deniedOutcome(base, "approval_error", "the gate failed");
  }
}
