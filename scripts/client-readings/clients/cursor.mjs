// Cursor `.cursor/mcp.json`: `mcpServers`; stdio from `command`, remote from
// `url`. The rule for an entry with both is unknown, so both are readings, as
// are both meanings of an unset `${env:X}` ("" or left as written).
import * as expand from "../lib/expand.mjs";
import { keysOf, remoteReading, stdioReading } from "../lib/launch.mjs";
import { eachParse } from "./unknown-parser.mjs";

export function read(bytes, ctx) {
  const results = [];
  for (const unset of ["empty", "literal"]) {
    const resolve = expand.cursor(ctx, unset);
    const label = `Cursor${unset === "literal" ? " (unset ${env:X} kept)" : ""}`;
    results.push(...eachParse(bytes, label, (name, entry) => [
      stdioReading(name, resolve(entry.command), Array.isArray(entry.args) ? expand.deep(resolve, entry.args) : entry.args, keysOf(entry.env)),
      remoteReading(name, resolve(entry.url), keysOf(entry.headers)),
    ]));
  }
  return results;
}
