/**
 * `http_request`: one HTTPS request to an allowed domain,
 * governed `egress`. Before approval the pipeline checks the URL (https,
 * a host, no userinfo), the SSRF primitive on IP literals and blocked
 * names, and the exact `allowedDomains` match; the approval preview shows
 * the host only. At dispatch the tool repeats those checks, resolves the
 * name (A and AAAA) and refuses the call if any answer is blocked, then
 * performs one HTTP/1.1 request over TLS with scrubbed headers (a 3xx
 * goes back to the model with its `location`, never followed), a 1 MiB
 * body cap (over ⇒ failure) and a 30 s timeout.
 *
 * No DNS-rebinding window: the request is pinned to the checked answers
 * (`HttpRequest.addresses`, IPv4 first). The host connects to one of
 * them and verifies TLS for the URL's host name, so the address checked
 * is the address connected to. The Deno permission queried right before
 * the effect is therefore `--allow-net=<address>:<port>` for each
 * answer (ungranted answers are skipped; none granted ⇒
 * `tool_unavailable` naming the first one's flag).
 *
 * SSRF and scheme refusals are fatal `tool_denied`; network, DNS and size
 * failures are `tool_failed`.
 *
 * @module
 */
import { z } from "zod";
import { unavailable } from "./_unavailable.ts";
import { hostFailure } from "../sandbox/fs_access.ts";
import { ToolEffectsError } from "../effects.ts";
import { scrubRequestHeaders } from "./http_headers.ts";
import {
  permissionFlag,
  type ToolPermission,
} from "../sandbox/permission_query.ts";
import {
  canonicalHost,
  checkResolvedAddresses,
  checkUrl,
} from "../sandbox/ssrf.ts";
import {
  defineTool,
  type ToolDefinition,
  type ToolRunResult,
} from "../tool.ts";

/**
 * Result of `http_request`.
 */
export interface HttpRequestResult {
  /** Status code (a 3xx is returned as is, never followed). */
  status: number;
  /** Response headers, lowercase names. */
  headers: Record<string, string>;
  /** The body as UTF-8 text (invalid sequences replaced). */
  body: string;
}

/** Canonical answers, IPv4 first, each once, in resolver order. */
function connectOrder(answers: readonly string[]): string[] {
  const v4: string[] = [];
  const v6: string[] = [];
  for (const a of answers) {
    const c = canonicalHost(a);
    if (c === undefined || c.kind === "name") continue;
    const list = c.kind === "ipv4" ? v4 : v6;
    if (!list.includes(c.address)) list.push(c.address);
  }
  return [...v4, ...v6];
}

function netPermission(address: string, port: number): ToolPermission {
  const host = address.includes(":") ? `[${address}]` : address;
  return { name: "net", host: `${host}:${port}` };
}

function denied(message: string): ToolRunResult {
  return { ok: false, error: { kind: "refused", reason: "policy", message } };
}

/** The complete effective arguments (the contract of `parse`). */
const httpRequestArgsSchema = z.strictObject(
  {
    url: z.string().min(1).describe("Absolute https URL"),
    method: z.enum(["GET", "POST", "PUT", "DELETE"]).exactOptional().describe(
      "HTTP method (default GET)",
    ),
    headers: z.record(z.string(), z.string()).exactOptional().describe(
      "Request headers",
    ),
    body: z.string().exactOptional().describe("Request body (not for GET)"),
  },
).refine((a) => a.body === undefined || (a.method ?? "GET") !== "GET", {
  message: "a GET request cannot have a body",
  path: ["body"],
});

/** Arguments of `http_request`. */
export type HttpRequestArgs = z.output<typeof httpRequestArgsSchema>;

/**
 * The `http_request` tool: governed `egress`, allowlisted domains only.
 */
export const httpRequestTool: ToolDefinition<HttpRequestArgs> = defineTool(
  httpRequestArgsSchema,
  {
    id: "http_request",
    description:
      "Make one HTTPS request to an allowed domain. Redirects are not followed: a 3xx response is returned with its location header. Returns status, headers and body text.",
    policy: {
      fsScoped: false,
      spawnsProcess: false,
      egress: "http",
      requiresGateApproval: false,
    },
    policyTarget: (args) => ({ url: args.url }),
    async dispatch(args, host, ctx): Promise<ToolRunResult> {
      const g = ctx.guardrails ?? {};
      const loopback = g.allowLoopbackForTests === true
        ? { allowLoopbackForTests: true }
        : {};
      const checked = checkUrl(args.url, {
        allowedDomains: g.allowedDomains ?? [],
        ...loopback,
      });
      if (!checked.ok) return denied(checked.error.message);
      const { host: target, port } = checked.value;
      if (host.fetch === undefined) {
        return unavailable("cannot make HTTP requests here");
      }
      const hostText = target.kind === "name"
        ? target.name
        : target.kind === "ipv6"
        ? `[${target.address}]`
        : target.address;
      let answers: string[] = target.kind === "name" ? [] : [target.address];
      if (target.kind === "name") {
        if (host.resolveDns === undefined) {
          return unavailable("cannot resolve host names here");
        }
        try {
          answers = await host.resolveDns(target.name, ctx.signal);
        } catch (e) {
          if (e instanceof ToolEffectsError && e.kind === "not_capable") {
            return unavailable(
              "needs --allow-net for the system DNS resolver (ip:53)",
            );
          }
          return {
            ok: false,
            error: { kind: "failed", message: "DNS lookup failed" },
          };
        }
        const verdict = checkResolvedAddresses(answers, loopback);
        if (!verdict.ok) return denied(verdict.error.message);
      }
      const candidates = connectOrder(answers);
      const addresses = candidates.filter((a) =>
        ctx.permissions(netPermission(a, port)) === "granted"
      );
      const net = netPermission(addresses[0] ?? candidates[0] ?? "", port);
      if (addresses.length === 0) {
        return unavailable(`needs the Deno permission ${permissionFlag(net)}`);
      }
      const method = args.method ?? "GET";
      const max = ctx.limits.httpBodyBytes;
      try {
        const response = await host.fetch({
          url: checked.value.url,
          addresses,
          method,
          headers: scrubRequestHeaders(args.headers ?? {}).headers,
          ...(args.body === undefined ? {} : { body: args.body }),
          timeoutMs: ctx.limits.httpTimeoutMs,
          maxBodyBytes: max,
          signal: ctx.signal,
        });
        if (response.bodyTruncated) {
          return {
            ok: false,
            error: {
              kind: "failed",
              message: `the response body exceeds ${max} bytes`,
            },
          };
        }
        const value: HttpRequestResult = {
          status: response.status,
          headers: response.headers,
          body: new TextDecoder().decode(response.body),
        };
        return {
          ok: true,
          value,
          summary: `${method} ${hostText} → ${response.status}`,
        };
      } catch (e) {
        if (e instanceof ToolEffectsError && e.kind === "failed") {
          const cause = e.cause instanceof Error ? e.cause : undefined;
          const message = cause?.message === "timed out"
            ? `the request timed out after ${ctx.limits.httpTimeoutMs} ms`
            : cause?.name === "HttpProtocolError"
            ? `the request failed: ${cause.message}`
            : "the request failed";
          return { ok: false, error: { kind: "failed", message } };
        }
        return { ok: false, error: hostFailure(e, permissionFlag(net)) };
      }
    },
  },
);
