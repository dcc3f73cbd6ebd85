// Shared by the closed-source clients whose parser is unknown (Cursor,
// Claude Desktop, Windsurf): each parser they could use is a reading, and the
// client's `mcpServers` map is read from each result that parsed.
import { decode, unknownParser } from "../lib/parse.mjs";
import { isObject } from "../lib/launch.mjs";

export function eachParse(bytes, client, readMap) {
  const results = [];
  for (const { parser, result } of unknownParser(decode(bytes))) {
    const label = `${client} (if ${parser})`;
    if (!result.ok) {
      results.push({ client: label, loaded: false, reason: result.reason, readings: [] });
      continue;
    }
    const map = isObject(result.value) ? result.value.mcpServers : undefined;
    const readings = [];
    if (isObject(map)) {
      for (const [name, entry] of Object.entries(map)) {
        if (isObject(entry)) readings.push(...readMap(name, entry).filter(Boolean));
      }
    }
    results.push({ client: label, loaded: true, readings });
  }
  return results;
}
