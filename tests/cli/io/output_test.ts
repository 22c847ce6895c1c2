import assert from "node:assert/strict";
import { stripControl } from "../../../cli/io/control.ts";
import { createBufferedIo } from "../../../cli/io/io.ts";
import { createPlainPrinter } from "../../../cli/io/output.ts";
import type { SessionEvent } from "../../../schema/event.ts";
import { tokenEvent } from "../_helpers.ts";

const ENV = { sessionId: "s", timestamp: "2026-01-01T00:00:00.000Z" };

Deno.test("stripControl() removes terminal control sequences", async (t) => {
  const cases: Array<[string, string, string]> = [
    ["CSI", "a\x1b[1;31mb\x1b[0m", "ab"],
    ["OSC with BEL", "\x1b]0;title\x07x", "x"],
    ["OSC with ST", "\x1b]8;;http://e\x1b\\link\x1b]8;;\x1b\\", "link"],
    ["8-bit CSI", "a\u009b2Jb", "ab"],
    ["C0 and DEL", "a\bb\x00c\x7fd\re", "abcde"],
    ["keeps tab and newline", "a\tb\nc", "a\tb\nc"],
    ["two-byte escape", "a\x1bcb", "ab"],
    ["unicode text", "héllo ✓", "héllo ✓"],
  ];
  for (const [name, input, want] of cases) {
    await t.step(name, () => assert.equal(stripControl(input), want));
  }
});

function turn(
  seq: number,
  extra: Partial<Extract<SessionEvent, { type: "session:turn_completed" }>>,
): SessionEvent {
  return {
    ...ENV,
    sequenceNumber: seq,
    type: "session:turn_completed",
    stopReason: "stop",
    tokensUsed: { input: 1, output: 1 },
    ...extra,
  };
}

/** A plain printer into a buffered io: no colour, not quiet, not verbose unless `options` say. */
function printer(
  options: Partial<Parameters<typeof createPlainPrinter>[1]> = {},
) {
  const b = createBufferedIo();
  const p = createPlainPrinter(b.io, {
    color: false,
    quiet: false,
    verbose: false,
    ...options,
  });
  return { b, p };
}

/** A streamed token of model `m`. */
const token = (seq: number, text: string) => tokenEvent(seq, text);

Deno.test("createPlainPrinter() prints a failed turn with its message on one line, then the hint", () => {
  const { b, p } = printer();
  p.print(token(1, "partial"));
  p.print(turn(2, {
    stopReason: "error",
    error: {
      code: "provider_auth",
      message:
        "The provider rejected the credentials (x, HTTP 401):\n\u001b[31minvalid key",
      correlationId: "req_42",
      retryable: false,
    },
  }));
  assert.equal(b.stdoutText(), "partial\n");
  assert.equal(
    b.stderrText(),
    "[turn failed: provider_auth] The provider rejected the credentials (x, HTTP 401): invalid key\n" +
      "Check the provider API key (relavium doctor)\n",
    "control sequences stripped; the request id only with -v",
  );
});

Deno.test("createPlainPrinter() -v names the provider's request id of a failed turn", () => {
  const { b, p } = printer({ verbose: true, hints: false });
  p.print(turn(1, {
    stopReason: "error",
    error: {
      code: "validation",
      message:
        "The provider rejected the request (x, HTTP 400): unsupported parameter",
      retryable: false,
      correlationId: "req_42",
    },
  }));
  assert.equal(
    b.stderrText(),
    "[turn failed: validation] The provider rejected the request (x, HTTP 400): unsupported parameter\n" +
      "[request id: req_42]\n",
  );
});

Deno.test("createPlainPrinter() notes aborts, failover and omits hints when asked", () => {
  const { b, p } = printer({ primaryModel: "a", hints: false });
  p.print(turn(1, { stopReason: "aborted" }));
  p.print(turn(2, { tokensUsed: { input: 1, output: 1, model: "b" } }));
  p.print(
    turn(3, {
      stopReason: "error",
      error: { code: "turn_limit", message: "x", retryable: false },
    }),
  );
  assert.equal(
    b.stderrText(),
    "[turn aborted]\n(via b)\n[turn failed: turn_limit] x\n",
  );
  assert.equal(b.stdoutText(), "");
});

Deno.test("createPlainPrinter() strips an escape split across tokens", () => {
  const { b, p } = printer({ quiet: true });
  for (const text of ["a\x1b[", "2", "Jb"]) p.print(token(1, text));
  p.end();
  assert.equal(b.stdoutText(), "ab\n");
});
