/**
 * The server's JSON answers and request bodies: the error body of every
 * refusal, and bodies read under a size cap and parsed by a zod schema
 * (a bad one names its field).
 *
 * @module
 */
import type { z } from "zod";
import type { ServeFault } from "./backend.ts";
import type { ErrorBody } from "./wire.ts";

/** Headers of a JSON answer. */
export const JSON_HEADERS: Record<string, string> = {
  "content-type": "application/json; charset=utf-8",
};

/** An error answer in the `--json` error shape. */
export function errorResponse(
  status: number,
  code: string,
  message: string,
): Response {
  const body: ErrorBody = { type: "error", code, message };
  return new Response(JSON.stringify(body), { status, headers: JSON_HEADERS });
}

/** The answer to a fault. */
export function faultResponse(f: ServeFault): Response {
  return errorResponse(f.status, f.code, f.message);
}

/** A JSON answer. */
export function jsonResponse(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: JSON_HEADERS });
}

/** A request body refused (its status: 400 or 413). */
export class BodyError extends Error {
  override readonly name = "BodyError";
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

async function readBody(req: Request, cap: number): Promise<string> {
  const length = Number(req.headers.get("content-length") ?? "0");
  if (length > cap) throw new BodyError(413, `Request body over ${cap} bytes`);
  if (req.body === null) return "";
  const reader = req.body.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > cap) {
      await reader.cancel();
      throw new BodyError(413, `Request body over ${cap} bytes`);
    }
    parts.push(value);
  }
  const all = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.byteLength;
  }
  return new TextDecoder().decode(all);
}

/** Reads a body under the cap and parses it with a schema. */
export async function parsed<T>(
  req: Request,
  cap: number,
  schema: z.ZodType<T>,
): Promise<T> {
  const text = await readBody(req, cap);
  let value: unknown;
  try {
    value = text === "" ? {} : JSON.parse(text);
  } catch {
    throw new BodyError(400, "Invalid JSON body");
  }
  const r = schema.safeParse(value);
  if (!r.success) {
    const issue = r.error.issues[0];
    const where = issue?.path.join(".") || "body";
    throw new BodyError(
      400,
      `Invalid ${where}: ${issue?.message ?? "invalid"}`,
    );
  }
  return r.data;
}
