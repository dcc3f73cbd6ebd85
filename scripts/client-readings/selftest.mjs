// Checks of the harness itself, run before it: the comparison must report a
// disagreement for every kind of difference, and the client readers must
// give the readings docs/clients.md predicts for a few constructed cases.
// Needs no mcp-warden binary. Exit 1 on any failure.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { compare } from "./lib/compare.mjs";
import { remoteDigest, stdioDigest } from "./lib/launch.mjs";
import { LOCATIONS } from "./lib/place.mjs";

const tests = [];
const test = (name, fn) => tests.push({ name, fn });

// Client readings of `text` placed at `location`.
function readingsOf(location, text) {
  const home = mkdtempSync(join(tmpdir(), "client-readings-selftest-"));
  try {
    const loc = LOCATIONS[location];
    const file = join(home, loc.path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    return loc.read(Buffer.from(text), { home, folder: join(home, "proj"), file });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

const launches = (results) =>
  [...new Set(results.flatMap((r) => r.readings.map((x) => `${x.name} ${x.transport} ${x.what}${x.disabled ? " disabled" : ""}`)))].sort();

const line = (name, transport, digest, extra = {}) => ({
  kind: "server", target: `~/proj/.mcp.json#${name}`, client: "Claude Code", name, transport,
  launch_digest: digest, disabled: false, readings: 1, env_names: [], header_names: [], ...extra,
});
const doctor = (servers, extra = {}) => ({ code: 1, signal: null, servers, findings: [], junk: [], stderr: "", ...extra });
const CLIENT = [{ client: "Claude Code", loaded: true, readings: [
  { name: "a", transport: "stdio", digest: stdioDigest("npx", ["x"]), what: "", env_names: ["T"], header_names: [], disabled: false, scope: null },
] }];
const status = (results, d, label = "~/proj/.mcp.json") => compare({ results, doctor: d, label }).status;

test("digests are the lock format's JCS text", () => {
  const hex = (text) => createHash("sha256").update(text, "utf8").digest("hex");
  assert.equal(stdioDigest("npx", ["-y", "a"]), `sha256:${hex('{"args":["-y","a"],"command":"npx"}')}`);
  assert.equal(remoteDigest("https://e.com"), `sha256:${hex('{"url":"https://e.com"}')}`);
});

test("an exact inventory agrees", () => {
  assert.equal(status(CLIENT, doctor([line("a", "stdio", stdioDigest("npx", ["x"]), { env_names: ["T"] })])), "agree");
});
test("a server doctor does not list disagrees", () => {
  assert.equal(status(CLIENT, doctor([])), "DISAGREE");
});
test("another command disagrees", () => {
  assert.equal(status(CLIENT, doctor([line("a", "stdio", stdioDigest("npx", ["y"]), { env_names: ["T"] })])), "DISAGREE");
});
test("the same digest as remote disagrees", () => {
  assert.equal(status(CLIENT, doctor([line("a", "http", stdioDigest("npx", ["x"]), { env_names: ["T"] })])), "DISAGREE");
});
test("disabled in doctor but started by the client disagrees", () => {
  assert.equal(status(CLIENT, doctor([line("a", "stdio", stdioDigest("npx", ["x"]), { env_names: ["T"], disabled: true })])), "DISAGREE");
});
test("a missing env name disagrees", () => {
  assert.equal(status(CLIENT, doctor([line("a", "stdio", stdioDigest("npx", ["x"]))])), "DISAGREE");
});
test("an unflagged extra disagrees, a flagged one is a superset", () => {
  const ok = line("a", "stdio", stdioDigest("npx", ["x"]), { env_names: ["T"] });
  const extra = line("b", "http", remoteDigest("https://e.com"));
  assert.equal(status(CLIENT, doctor([ok, extra])), "DISAGREE");
  assert.equal(status(CLIENT, doctor([ok, { ...extra, readings: 2 }])), "superset");
  const finding = { kind: "finding", rule_id: "WRD-DOCTOR-AMBIGUOUS-SERVER", target: extra.target };
  assert.equal(status(CLIENT, doctor([ok, extra], { findings: [finding] })), "superset");
  assert.equal(status(CLIENT, doctor([ok, { ...extra, transport: "none" }])), "agree");
});
test("a refusal agrees only when nothing loads or a client is named", () => {
  assert.equal(status(CLIENT, doctor([], { code: 2, stderr: "error: ~/proj/.mcp.json: bad\n" })), "DISAGREE");
  assert.equal(status(CLIENT, doctor([], { code: 2, stderr: "error: ~/proj/.mcp.json: Claude Code reads x\n" })), "refused");
  assert.equal(status([{ client: "Claude Code", loaded: false, readings: [] }], doctor([], { code: 2 })), "agree");
  assert.equal(status(CLIENT, doctor([], { code: 101 })), "DISAGREE");
});
test("~/.claude.json project sections are matched by section", () => {
  const r = [{ client: "Claude Code", loaded: true, readings: [{ ...CLIENT[0].readings[0], env_names: [], scope: "/p" }] }];
  const d = (target) => doctor([{ ...line("a", "stdio", stdioDigest("npx", ["x"])), target }]);
  assert.equal(status(r, d("~/.claude.json#projects[/p]#a"), "~/.claude.json"), "agree");
  assert.equal(status(r, d("~/.claude.json#a"), "~/.claude.json"), "DISAGREE");
});

test("Claude Code: command + url without type runs the command; VS Code's .mcp.json reader connects", () => {
  assert.deepEqual(launches(readingsOf("dot-mcp", '{"mcpServers":{"d":{"command":"npx","url":"https://e.com/m"}}}')), [
    'd remote {"url":"https://e.com/m"}', 'd stdio {"command":"npx","args":[]}',
  ]);
});
test("Claude Code: ${X:-a:-b} is a, ${A:-${B:-sh}} is ${B}", () => {
  const results = readingsOf("claude-json", '{"mcpServers":{"n":{"command":"${A:-${B:-sh}}","args":["${X:-a:-b}","${U}"]}}}');
  assert.deepEqual(launches(results), ['n stdio {"command":"${B}","args":["a","${U}"]}']);
});
test("Claude Code: one invalid entry drops the map", () => {
  const results = readingsOf("dot-mcp", '{"mcpServers":{"ok":{"command":"x"},"bad":{"url":"https://e.com"}}}');
  assert.deepEqual(launches(results.filter((r) => r.client.startsWith("Claude Code"))), []);
});
test("VS Code: __proto__ in an entry gives an inherited command", () => {
  const results = readingsOf("vscode", '{"servers":{"s":{"__proto__":{"command":"sh"},"url":"https://e.com"}}}');
  assert.deepEqual(launches(results), ['s stdio {"command":"sh","args":[]}']);
});
test("VS Code: type sse with a command is stdio; env and folder variables resolve", () => {
  const results = readingsOf("vscode", '{"servers":{"s":{"type":"sse","url":"https://e.com","command":"${env:P}sh","args":["${input:x}"]}}}');
  assert.deepEqual(launches(results), ['s stdio {"command":"sh","args":["${input:x}"]}']);
});
test("VS Code: a flat .mcp.json is read by the workspace reader only", () => {
  const results = readingsOf("dot-mcp", '{"evil":{"command":"sh"},"note":"x"}');
  assert.deepEqual(launches(results), ['evil stdio {"command":"sh","args":[]}']);
});
test("Windsurf: serverUrl and url are both readings", () => {
  const results = readingsOf("windsurf", '{"mcpServers":{"w":{"serverUrl":"https://real.e/m","url":"https://decoy.e/m"}}}');
  assert.ok(launches(results).includes('w remote {"url":"https://real.e/m"}'));
});
test("Cursor: a commented file is a JSONC reading", () => {
  const results = readingsOf("cursor", '{ /* c */ "mcpServers": {"c": {"command": "sh"}}}');
  assert.deepEqual(launches(results), ['c stdio {"command":"sh","args":[]}']);
});
test("Codex: command + url refuses the config; enabled = false is disabled; bearer is a header", () => {
  assert.deepEqual(readingsOf("codex", '[mcp_servers.a]\ncommand = "x"\nurl = "https://e.com"\n')[0].loaded, false);
  assert.deepEqual(launches(readingsOf("codex", '[mcp_servers.a]\ncommand = "x"\nenabled = false\n')), ['a stdio {"command":"x","args":[]} disabled']);
  const r = readingsOf("codex", '[mcp_servers.r]\nurl = "https://e.com"\nbearer_token_env_var = "T"\n')[0].readings[0];
  assert.deepEqual(r.header_names, ["Authorization"]);
});

let failed = 0;
for (const { name, fn } of tests) {
  try {
    fn();
  } catch (err) {
    failed++;
    console.error(`selftest FAILED: ${name}\n  ${err.message.split("\n").join("\n  ")}`);
  }
}
console.log(`harness selftest: ${tests.length - failed}/${tests.length} passed`);
process.exit(failed ? 1 : 0);
