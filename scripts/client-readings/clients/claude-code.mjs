// Claude Code: `.mcp.json` (project scope) and `~/.claude.json` (user scope
// and every `projects[<key>]` section), read as docs/clients.md records:
// JSON.parse after a BOM strip, a zod union per entry tried in order, the
// whole map rejected when one entry fails, `${VAR}`/`${VAR:-default}`
// expanded with an empty environment.
import { decode, strict, stripBom } from "../lib/parse.mjs";
import * as expand from "../lib/expand.mjs";
import { isObject, keysOf, remoteReading, stdioReading } from "../lib/launch.mjs";

const isStringRecord = (v) => v === undefined || (isObject(v) && Object.values(v).every((x) => typeof x === "string"));
const isString = (v) => typeof v === "string";
const optString = (v) => v === undefined || isString(v);

// The remote members of the union: type literal -> extra required fields.
const REMOTE = {
  sse: [],
  "sse-ide": ["ideName"],
  "ws-ide": ["ideName"],
  http: [],
  ws: [],
  "claudeai-proxy": ["id"],
};

// One entry through the union. Returns { kind: "stdio"|"remote"|"none" } or
// { error }. `streamableHttp`: a later version also accepts that type.
function validate(entry, streamableHttp) {
  if (!isObject(entry)) return { error: "not an object" };
  const type = entry.type;
  if (type === undefined || type === "stdio") {
    if (isString(entry.command) && entry.command.length >= 1 &&
        (entry.args === undefined || (Array.isArray(entry.args) && entry.args.every(isString))) &&
        isStringRecord(entry.env)) {
      return { kind: "stdio" };
    }
  }
  const remote = type === "streamable-http" && streamableHttp ? [] : REMOTE[type];
  if (Object.hasOwn(REMOTE, type) || (type === "streamable-http" && streamableHttp)) {
    if (isString(entry.url) && isStringRecord(entry.headers) && optString(entry.headersHelper) &&
        remote.every((k) => isString(entry[k]))) {
      return { kind: "remote" };
    }
  }
  if (type === "sdk" && isString(entry.name)) return { kind: "none" };
  return { error: "Does not adhere to MCP server configuration schema" };
}

// One `mcpServers` map: every reading, or the reason the whole map is dropped.
function readMap(map, { streamableHttp, keepProto, scope }) {
  if (!isObject(map)) return { error: "mcpServers is not an object" };
  const readings = [];
  for (const name of Object.keys(map)) {
    if (name === "__proto__" && !keepProto) continue;
    const entry = map[name];
    const verdict = validate(entry, streamableHttp);
    if (verdict.error) return { error: `${name}: ${verdict.error}` };
    if (name === "workspace") continue; // reserved name, skipped
    let reading = null;
    if (verdict.kind === "stdio") {
      reading = stdioReading(name, expand.claudeCode(entry.command), (entry.args ?? []).map(expand.claudeCode), keysOf(entry.env));
    } else if (verdict.kind === "remote") {
      reading = remoteReading(name, expand.claudeCode(entry.url), keysOf(entry.headers));
    }
    if (reading) readings.push({ ...reading, scope });
  }
  return { readings };
}

// The variants Claude Code's versions and its zod record handling allow:
// 2.1.88 accepts type "http" only, a later version also "streamable-http";
// whether zod keeps a "__proto__" record key is unknown.
function variants(maps) {
  const out = [];
  for (const streamableHttp of [false, true]) {
    for (const keepProto of [true, false]) {
      if (!keepProto && !maps.some((m) => isObject(m) && Object.hasOwn(m, "__proto__"))) continue;
      const label = `Claude Code${streamableHttp ? " (streamable-http release)" : " 2.1.88"}${keepProto ? "" : " (zod drops __proto__)"}`;
      out.push({ streamableHttp, keepProto, label });
    }
  }
  return out;
}

export function readProjectFile(bytes) {
  const parsed = strict(stripBom(decode(bytes)));
  if (!parsed.ok) return [{ client: "Claude Code", loaded: false, reason: parsed.reason, readings: [] }];
  const root = parsed.value;
  if (!isObject(root) || root.mcpServers === undefined) {
    return [{ client: "Claude Code", loaded: false, reason: "no mcpServers key (McpJsonConfigSchema)", readings: [] }];
  }
  return variants([root.mcpServers]).map((v) => {
    const map = readMap(root.mcpServers, { ...v, scope: null });
    return map.error
      ? { client: v.label, loaded: false, reason: map.error, readings: [] }
      : { client: v.label, loaded: true, readings: map.readings };
  });
}

export function readUserFile(bytes) {
  const parsed = strict(stripBom(decode(bytes)));
  if (!parsed.ok) return [{ client: "Claude Code", loaded: false, reason: parsed.reason, readings: [] }];
  const root = parsed.value;
  if (!isObject(root)) return [{ client: "Claude Code", loaded: false, reason: "top level is not an object", readings: [] }];
  // Each scope is validated on its own; which project section is used depends
  // on the launch directory, so every section is a possible reading.
  const scopes = [];
  if (root.mcpServers !== undefined) scopes.push({ scope: null, map: root.mcpServers });
  if (isObject(root.projects)) {
    for (const key of Object.keys(root.projects)) {
      const section = root.projects[key];
      if (isObject(section) && section.mcpServers !== undefined) {
        const disabled = Array.isArray(section.disabledMcpServers) ? section.disabledMcpServers : [];
        scopes.push({ scope: key, map: section.mcpServers, disabled });
      }
    }
  }
  const results = [];
  for (const v of variants(scopes.map((s) => s.map))) {
    const readings = [];
    const reasons = [];
    for (const s of scopes) {
      const map = readMap(s.map, { ...v, scope: s.scope });
      if (map.error) reasons.push(`${s.scope === null ? "mcpServers" : `projects[${s.scope}]`}: ${map.error}`);
      else readings.push(...map.readings.map((r) => ({ ...r, disabled: (s.disabled ?? []).includes(r.name) })));
    }
    results.push({ client: v.label, loaded: readings.length > 0 || reasons.length === 0, reason: reasons.join("; ") || undefined, readings });
  }
  return results;
}
