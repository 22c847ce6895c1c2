/**
 * Private: DNS and HTTP effects of the Deno host (`http_request`).
 *
 * `fetch` never follows a redirect (`redirect: "manual"`) and stops
 * reading the body one byte past the cap. `Deno.resolveDns` needs
 * `--allow-net` for the system resolver's `ip:53`.
 *
 * @module
 */
import { kindOf, wrap } from "./_deno_errors.ts";
import { type HttpRequest, type HttpResponse, ToolHostError } from "./host.ts";

/** Every A and AAAA answer; NXDOMAIN or no records ⇒ none of that type. */
export async function resolveAll(
  name: string,
  signal: AbortSignal,
): Promise<string[]> {
  const settled = await Promise.allSettled([
    Deno.resolveDns(name, "A", { signal }),
    Deno.resolveDns(name, "AAAA", { signal }),
  ]);
  const out: string[] = [];
  let failure: unknown;
  for (const s of settled) {
    if (s.status === "fulfilled") out.push(...s.value);
    else if (kindOf(s.reason) !== "not_found") failure ??= s.reason;
  }
  if (failure !== undefined) throw wrap(failure);
  return out;
}

async function readCapped(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  if (body === null) return { bytes: new Uint8Array(), truncated: false };
  const reader = body.getReader();
  const kept: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      const room = maxBytes - size;
      if (value.length > room) {
        kept.push(value.subarray(0, room));
        size += room;
        truncated = true;
        break;
      }
      kept.push(value);
      size += value.length;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of kept) {
    bytes.set(c, at);
    at += c.length;
  }
  return { bytes, truncated };
}

/** One request, no redirects followed, body capped, timeout enforced. */
export async function fetchOnce(
  request: HttpRequest,
  options: { caCerts: readonly string[] },
): Promise<HttpResponse> {
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), request.timeoutMs);
  const client = options.caCerts.length === 0
    ? undefined
    : Deno.createHttpClient({ caCerts: [...options.caCerts] });
  try {
    const response = await fetch(request.url, {
      method: request.method,
      headers: { ...request.headers },
      redirect: "manual",
      signal: AbortSignal.any([request.signal, timeout.signal]),
      ...(request.body === undefined ? {} : { body: request.body }),
      ...(client === undefined ? {} : { client }),
    });
    const headers: Record<string, string> = {};
    response.headers.forEach((value, key) => {
      const name = key.toLowerCase();
      headers[name] = headers[name] === undefined
        ? value
        : `${headers[name]}, ${value}`;
    });
    const { bytes, truncated } = await readCapped(
      response.body,
      request.maxBodyBytes,
    );
    return {
      status: response.status,
      headers,
      body: bytes,
      bodyTruncated: truncated,
    };
  } catch (e) {
    if (request.signal.aborted) throw new ToolHostError("aborted");
    if (timeout.signal.aborted) {
      throw new ToolHostError("failed", { cause: new Error("timed out") });
    }
    const cause = e instanceof Error ? e.cause : undefined;
    if (kindOf(cause) === "not_capable") throw wrap(cause);
    throw wrap(e);
  } finally {
    clearTimeout(timer);
    client?.close();
  }
}
