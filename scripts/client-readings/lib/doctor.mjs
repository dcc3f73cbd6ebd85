// Runs `mcp-warden doctor --json --inventory` on a temporary home holding one
// file, with an empty environment, and splits what it prints.
import { spawn } from "node:child_process";

export function runDoctor(bin, home) {
  return new Promise((resolve) => {
    const args = ["doctor", "--json", "--inventory", "--home", home, "--platform", "linux"];
    const child = spawn(bin, args, { cwd: `${home}/proj`, env: {}, stdio: ["ignore", "pipe", "pipe"] });
    const out = [];
    const err = [];
    child.stdout.on("data", (d) => out.push(d));
    child.stderr.on("data", (d) => err.push(d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve(parse(code, signal, Buffer.concat(out).toString("utf8"), Buffer.concat(err).toString("utf8")));
    });
  });
}

function parse(code, signal, stdout, stderr) {
  const servers = [];
  const findings = [];
  const junk = [];
  for (const line of stdout.split("\n")) {
    if (line.trim() === "") continue;
    let record;
    try {
      record = JSON.parse(line);
    } catch {
      junk.push(line);
      continue;
    }
    if (record.kind === "server") servers.push(record);
    else if (record.kind === "finding") findings.push(record);
  }
  return { code, signal, servers, findings, junk, stderr };
}

// Transport class of an inventory line.
export const transportClass = (t) => (t === "stdio" ? "stdio" : t === "none" ? "none" : "remote");
