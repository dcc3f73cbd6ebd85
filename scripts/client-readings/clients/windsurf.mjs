// Windsurf `mcp_config.json`: `mcpServers`; stdio from `command`, remote from
// `serverUrl` (and `url`, whose acceptance is unknown). With both a command
// and a URL the rule is unknown: every one is a reading, as are both
// meanings of an unset `${env:X}`.
import * as expand from "../lib/expand.mjs";
import { keysOf, remoteReading, stdioReading } from "../lib/launch.mjs";
import { eachParse } from "./unknown-parser.mjs";

export function read(bytes) {
  const results = [];
  for (const unset of ["empty", "literal"]) {
    const resolve = expand.windsurf(unset);
    const label = `Windsurf${unset === "literal" ? " (unset ${env:X} kept)" : ""}`;
    results.push(...eachParse(bytes, label, (name, entry) => [
      stdioReading(name, resolve(entry.command), Array.isArray(entry.args) ? expand.deep(resolve, entry.args) : entry.args, keysOf(entry.env)),
      remoteReading(name, resolve(entry.serverUrl), keysOf(entry.headers)),
      remoteReading(name, resolve(entry.url), keysOf(entry.headers)),
    ]));
  }
  return results;
}
