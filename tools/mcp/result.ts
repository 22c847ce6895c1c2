/**
 * The model's text of an MCP call result: the text parts in order, the
 * structured content as JSON, every other part named by its type (and
 * MIME type, URI or name) without its bytes, and an `isError` result
 * marked as the tool's error. The pipeline then bounds it like every
 * built-in result.
 *
 * @module
 */
import type { McpContentPart } from "./connection.ts";

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

function partText(part: McpContentPart): string {
  switch (part.type) {
    case "text":
      return str(part["text"]) ?? "";
    case "image":
    case "audio": {
      const data = str(part["data"]) ?? "";
      const bytes = Math.floor(data.length * 3 / 4);
      return `[${part.type}: ${
        str(part["mimeType"]) ?? "unknown type"
      }, about ${bytes} bytes, not shown]`;
    }
    case "resource": {
      const r = part["resource"];
      const res = typeof r === "object" && r !== null
        ? r as Record<string, unknown>
        : {};
      const text = str(res["text"]);
      const uri = str(res["uri"]) ?? "";
      return text === undefined
        ? `[resource: ${uri}, binary, not shown]`
        : `[resource: ${uri}]\n${text}`;
    }
    case "resource_link":
      return `[resource link: ${str(part["name"]) ?? ""} ${
        str(part["uri"]) ?? ""
      }]`;
    default:
      return `[${part.type} content, not shown]`;
  }
}

/**
 * The text of a result.
 *
 * @param result Content parts, structured content, error flag.
 * @returns The text the model sees before bounding.
 */
export function mcpResultText(result: {
  isError: boolean;
  content: readonly McpContentPart[];
  structuredContent?: unknown;
}): string {
  const parts = result.content.map(partText);
  if (result.structuredContent !== undefined) {
    const json = JSON.stringify(result.structuredContent);
    // Servers usually repeat the structured content as a text part.
    if (!parts.includes(json)) parts.push(json);
  }
  const body = parts.join("\n");
  return result.isError ? `The tool reported an error:\n${body}` : body;
}
