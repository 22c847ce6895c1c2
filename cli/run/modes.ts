/**
 * The approval-mode controller of a session, apart from the
 * tool registry so that a session without tools loads no tool modules.
 *
 * @module
 */
import { createModePolicy, type ModeController } from "../../tools/modes.ts";
import type {
  ApprovalDecision,
  ApprovalRequest,
} from "../../tools/registry.ts";
import type { ModeName } from "../args.ts";

/**
 * Builds the approval-mode controller.
 *
 * @param registry The session's tools (their read-only test); `undefined`
 * when the agent grants none.
 * @param options Starting mode, and the person to ask when interactive.
 * @returns The controller; its `policy` goes to `setTurnPolicy`.
 */
export function buildModes(
  registry: { isReadOnly(id: string): boolean } | undefined,
  options: {
    mode: ModeName;
    approver?: (request: ApprovalRequest) => Promise<ApprovalDecision>;
  },
): ModeController {
  return createModePolicy({
    mode: options.mode,
    interactive: options.approver !== undefined,
    isReadOnly: (id) => registry?.isReadOnly(id) ?? false,
    ...(options.approver === undefined ? {} : { approver: options.approver }),
  });
}
