/**
 * Classification of tools by their policy: governed
 * action, read-only-ness, and the Deno permissions a tool needs before it
 * may be advertised or dispatched.
 *
 * @module
 */
import type { GovernedAction } from "../schema/event.ts";
import type { ScopePlan } from "./sandbox/fs_scope.ts";
import type { ToolPermission } from "./sandbox/permission_query.ts";
import type { ToolPolicy } from "./tool.ts";

/**
 * The governed action class of a tool, or `undefined` when it is not
 * governed (reads, `git_status`, the gated `git_commit`).
 *
 * @param policy The tool's policy.
 * @returns The action class.
 */
export function governedAction(policy: ToolPolicy): GovernedAction | undefined {
  if (policy.fsWrite === true) return "fs_write";
  if (policy.egress !== undefined) return "egress";
  if (policy.os === true) return "os";
  if (
    policy.spawnsProcess && policy.fixedProgram === undefined &&
    !policy.requiresGateApproval
  ) return "process";
  return undefined;
}

/**
 * Whether a tool is read-only: neither governed nor gated (the tools the
 * `ask` and `plan` modes advertise).
 *
 * @param policy The tool's policy.
 * @returns `true` for `read_file`, `list_directory`, `git_status` and alike.
 */
export function isReadOnlyPolicy(policy: ToolPolicy): boolean {
  return governedAction(policy) === undefined && !policy.requiresGateApproval;
}

/**
 * The Deno permissions a tool needs regardless of its arguments: read on
 * every root for fs tools (plus write for fs writers), run for a fixed
 * program. Per-call needs (a command, a host) are checked at dispatch.
 *
 * @param policy The tool's policy.
 * @param plan The filesystem scope.
 * @returns Descriptors, in order.
 */
export function staticPermissions(
  policy: ToolPolicy,
  plan: ScopePlan,
): ToolPermission[] {
  const out: ToolPermission[] = [];
  if (policy.fsScoped) {
    for (const path of plan.roots) out.push({ name: "read", path });
    if (policy.fsWrite === true) {
      for (const path of plan.roots) out.push({ name: "write", path });
    }
  }
  if (policy.fixedProgram !== undefined) {
    out.push({ name: "run", command: policy.fixedProgram });
  }
  return out;
}
