/**
 * Step 4 of the pipeline, the part driven by configuration:
 * the command allowlist for a process tool and the URL checks for an
 * `http` tool, both on the tool's policy target and before approval, so
 * no mode (not even `auto`) runs an unlisted command or reaches an
 * unlisted host.
 *
 * @module
 */
import { isCommandAllowed } from "./sandbox/command_allowlist.ts";
import { governedAction } from "./policy.ts";
import { checkUrl } from "./sandbox/ssrf.ts";
import type { PolicyTarget, ToolPolicy } from "./tool.ts";
import type { ToolGuardrails } from "./sandbox/guardrail_lists.ts";

export type { ToolGuardrails } from "./sandbox/guardrail_lists.ts";

/**
 * A guardrail refusal: a reason code and a path-free message.
 *
 * @example Value
 * ```ts
 * import type { GuardrailRefusal } from "@relavium/session/tools";
 * const r: GuardrailRefusal = { reason: "command_not_allowed", message: "the command is not in the allowlist" };
 * ```
 */
export interface GuardrailRefusal {
  /** `command_not_allowed`, `insecure_url`, `domain_not_allowed`, `ssrf_blocked`. */
  reason: string;
  /** Message without the command, URL or path. */
  message: string;
}

/**
 * Checks a call's policy target against the guardrails: a governed
 * process tool needs an allowed command target, an `http` tool a URL that
 * passes `checkUrl` with the allowed domains. Other tools pass.
 *
 * @param policy The tool's policy.
 * @param target The tool's policy target for this call.
 * @param guardrails The configuration.
 * @returns `undefined` when allowed, else the refusal.
 *
 * @example Deny by default
 * ```ts
 * import { checkGuardrails } from "@relavium/session/tools";
 * import assert from "node:assert/strict";
 * const run = { fsScoped: false, spawnsProcess: true, requiresGateApproval: false };
 * assert.equal(checkGuardrails(run, { command: "ls" }, {})?.reason, "command_not_allowed");
 * assert.equal(checkGuardrails(run, { command: "ls" }, { allowedCommands: ["ls"] }), undefined);
 * ```
 */
export function checkGuardrails(
  policy: ToolPolicy,
  target: PolicyTarget,
  guardrails: ToolGuardrails,
): GuardrailRefusal | undefined {
  if (governedAction(policy) === "process") {
    if (
      target.command === undefined ||
      !isCommandAllowed(target.command, guardrails, target.argv)
    ) {
      return {
        reason: "command_not_allowed",
        message: "the command is not in the allowlist",
      };
    }
  }
  if (policy.egress === "http") {
    if (target.url === undefined) {
      return { reason: "insecure_url", message: "the call has no URL" };
    }
    const checked = checkUrl(target.url, {
      allowedDomains: guardrails.allowedDomains ?? [],
      ...(guardrails.allowLoopbackForTests === true
        ? { allowLoopbackForTests: true }
        : {}),
    });
    if (!checked.ok) return checked.error;
  }
  return undefined;
}
