// VS Code: its own `mcp.json` files (workspace `.vscode/mcp.json`, user
// `Code/User/mcp.json`), its workspace `.mcp.json` reader, and the discovery
// adapter it uses for Claude Desktop's, Windsurf's and Cursor's files.
import { decode, hasBom, strict, stripBom, vscodeJsonc } from "../lib/parse.mjs";
import * as expand from "../lib/expand.mjs";
import { isObject, keysOf, remoteReading, stdioReading } from "../lib/launch.mjs";

// Whether VS Code strips a BOM before parsing is not checked: both readings.
const texts = (bytes) => {
  const text = decode(bytes);
  return hasBom(text) ? [{ how: "", text }, { how: " (BOM stripped)", text: stripBom(text) }] : [{ how: "", text }];
};

// mcpResourceScannerService + installedMcpServersDiscovery: `servers` only;
// a `type` other than stdio/http becomes `command ? "stdio" : "http"`; the
// whole launch (keys included) goes through the configuration resolver.
// Property access follows prototypes, as jsonc-parser's objects have them.
function readServers(root, resolve) {
  const servers = isObject(root) ? root.servers : undefined;
  if (!isObject(servers)) return [];
  const readings = [];
  for (const [name, entry] of Object.entries(servers)) {
    if (!isObject(entry)) continue;
    let type = entry.type;
    if (type !== "stdio" && type !== "http") type = entry.command ? "stdio" : "http";
    const reading = launch(name, entry, type === "http", resolve);
    if (reading) readings.push(reading);
  }
  return readings;
}

// The launch of one entry after the resolver (keys of env and headers too;
// an env value of null removes the variable).
function launch(name, entry, http, resolve) {
  if (http) {
    const headers = expand.deep(resolve, isObject(entry.headers) ? entry.headers : {}, true);
    return remoteReading(name, resolve(entry.url), Object.keys(headers));
  }
  const env = expand.deep(resolve, isObject(entry.env) ? entry.env : {}, true);
  const args = Array.isArray(entry.args) ? expand.deep(resolve, entry.args) : entry.args;
  return stdioReading(name, resolve(entry.command), args, Object.keys(env).filter((k) => env[k] !== null));
}

// `.vscode/mcp.json` (folder = the folder holding `.vscode`) or the user file
// (folder = null: `${workspaceFolder}` there depends on what is open; both
// "left as written" and "the open folder" are readings).
export function readMcpJson(bytes, ctx, { user }) {
  const folders = user ? [null, ctx.folder] : [ctx.folder];
  const results = [];
  for (const { how, text } of texts(bytes)) {
    const parsed = vscodeJsonc(text);
    if (!parsed.ok) {
      results.push({ client: `VS Code${how}`, loaded: false, reason: parsed.reason, readings: [] });
      continue;
    }
    for (const folder of folders) {
      const label = `VS Code${how}${user && folder ? " (workspace open)" : ""}`;
      results.push({ client: label, loaded: true, readings: readServers(parsed.value, expand.vscode({ home: ctx.home, folder })) });
    }
  }
  return results;
}

// claudeConfigToServerDefinition: JSON.parse, `mcpServers`, truthy `url` ->
// HTTP (command and type ignored), else stdio; no variable expansion.
function claudeConfigServers(map) {
  const readings = [];
  for (const [name, entry] of Object.entries(map)) {
    if (!isObject(entry)) continue;
    const reading = entry.url
      ? remoteReading(name, entry.url, keysOf(entry.headers))
      : stdioReading(name, entry.command, entry.args, keysOf(entry.env));
    if (reading) readings.push(reading);
  }
  return readings;
}

// The workspace `.mcp.json` reader; a recent VS Code reads a file without an
// `mcpServers` key as a flat map of the members that have a command or url.
export function readDotMcpJson(bytes) {
  const results = [];
  for (const { how, text } of texts(bytes)) {
    const parsed = strict(text);
    const client = `VS Code (workspace .mcp.json)${how}`;
    if (!parsed.ok) {
      results.push({ client, loaded: false, reason: parsed.reason, readings: [] });
      continue;
    }
    const root = parsed.value;
    if (!isObject(root)) {
      results.push({ client, loaded: false, reason: "top level is not an object", readings: [] });
    } else if (root.mcpServers !== undefined) {
      results.push({ client, loaded: true, readings: isObject(root.mcpServers) ? claudeConfigServers(root.mcpServers) : [] });
    } else {
      const flat = Object.fromEntries(Object.entries(root).filter(([, v]) => isObject(v) && (v.command || v.url)));
      results.push({ client: `${client} (flat map)`, loaded: true, readings: claudeConfigServers(flat) });
    }
  }
  return results;
}

// Discovery of other apps' files (chat.mcp.discovery.enabled).
export function readDiscovered(bytes, source) {
  const client = `VS Code (discovery: ${source})`;
  const results = [];
  for (const { how, text } of texts(bytes)) {
    const parsed = strict(text);
    if (!parsed.ok) {
      results.push({ client: client + how, loaded: false, reason: parsed.reason, readings: [] });
      continue;
    }
    const map = isObject(parsed.value) ? parsed.value.mcpServers : undefined;
    results.push({ client: client + how, loaded: true, readings: isObject(map) ? claudeConfigServers(map) : [] });
  }
  return results;
}

// The older reader (configuration service, VS Code about 1.99-1.101), only
// with CLIENT_READINGS_LEGACY_VSCODE=1: the partial tree of a file with
// parse errors is kept, top-level keys are split on ".", `mcpServers` is
// merged over `servers`, and `'url' in entry` decides HTTP.
export function readMcpJsonLegacy(bytes, ctx) {
  const client = "VS Code <=1.101";
  const parsed = vscodeJsonc(stripBom(decode(bytes)));
  const tree = parsed.ok ? parsed.value : parsed.partial;
  if (!isObject(tree)) return [{ client, loaded: false, reason: "no object", readings: [] }];
  const root = {};
  for (const key of Object.keys(tree)) {
    const path = key.split(".");
    let node = root;
    for (const part of path.slice(0, -1)) {
      if (node[part] === undefined) node[part] = {};
      node = node[part];
      if (!isObject(node)) break;
    }
    if (isObject(node)) node[path[path.length - 1]] = tree[key];
  }
  const servers = { ...(isObject(root.servers) ? root.servers : {}), ...(isObject(root.mcpServers) ? root.mcpServers : {}) };
  const resolve = expand.vscode({ home: ctx.home, folder: ctx.folder });
  const readings = [];
  for (const [name, entry] of Object.entries(servers)) {
    if (!isObject(entry)) continue;
    const reading = launch(name, entry, "url" in entry, resolve);
    if (reading) readings.push(reading);
  }
  return [{ client, loaded: true, readings }];
}
