// Claude Desktop `claude_desktop_config.json`: `mcpServers`, local stdio from
// `command`/`args`/`env`, no expansion. Remote entries are documented as not
// connected, but one report has `type: "http"`/`"sse"` + `url` working: that
// is a reading too.
import { keysOf, remoteReading, stdioReading } from "../lib/launch.mjs";
import { eachParse } from "./unknown-parser.mjs";

const REMOTE_TYPES = new Set(["http", "sse", "streamable-http"]);

export function read(bytes) {
  return eachParse(bytes, "Claude Desktop", (name, entry) => [
    stdioReading(name, entry.command, entry.args, keysOf(entry.env)),
    REMOTE_TYPES.has(entry.type) ? remoteReading(name, entry.url, keysOf(entry.headers)) : null,
  ]);
}
