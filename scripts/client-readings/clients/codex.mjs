// Codex `config.toml`: read by codex-reader (Rust, the toml crate line Codex
// pins); this module turns its server list into readings.
import { execFileSync } from "node:child_process";
import { remoteReading, stdioReading } from "../lib/launch.mjs";

export function read(path) {
  const bin = process.env.CODEX_READER;
  if (!bin) throw new Error("CODEX_READER is not set (run scripts/client-readings/run.sh)");
  const verdict = JSON.parse(execFileSync(bin, [path], { encoding: "utf8", env: {} }));
  if (verdict.status !== "loaded") return [{ client: "Codex", loaded: false, reason: verdict.reason, readings: [] }];
  const readings = verdict.servers.map((s) => {
    const extra = { disabled: s.disabled };
    const r = s.transport === "stdio"
      ? stdioReading(s.name, s.command, s.args, s.env_names, extra)
      : remoteReading(s.name, s.url, s.header_names, extra);
    return r;
  }).filter(Boolean);
  return [{ client: "Codex", loaded: true, readings }];
}
