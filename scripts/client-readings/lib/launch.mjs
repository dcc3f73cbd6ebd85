// What a client launches, reduced to what doctor's inventory prints: the
// transport class, the lock format's command digest, and the names of the
// variables and headers it passes. One place for the digest rule.
import { createHash } from "node:crypto";

const sha256 = (text) => "sha256:" + createHash("sha256").update(text, "utf8").digest("hex");

// The lock format's command digest: the JCS text of {"args":[...],"command":"..."}
// (stdio) or {"url":"..."} (remote). For string values JCS equals JSON.stringify
// with the keys in this (sorted) order.
export function stdioDigest(command, args) {
  return sha256(JSON.stringify({ args, command }));
}

export function remoteDigest(url) {
  return sha256(JSON.stringify({ url }));
}

const isString = (v) => typeof v === "string";

// What a disagreement line shows of a launch: configs carry credentials in
// arguments and URLs, so arguments are cut short and a URL loses its
// userinfo, query and fragment. The digest identifies the launch exactly.
const clip = (s) => (s.length > 32 ? `${s.slice(0, 24)}…(len=${s.length})` : s);
function shownUrl(url) {
  try {
    const u = new URL(url);
    return clip(`${u.protocol}//${u.host}${u.pathname}`);
  } catch {
    return clip(url.replace(/[?#].*$/s, ""));
  }
}

// A stdio reading, or null when the client would start nothing (no command,
// or a command or argument that is not a string: the spawn fails).
export function stdioReading(name, command, args, envNames, extra = {}) {
  if (!isString(command) || command === "") return null;
  const argv = args === undefined || args === null ? [] : args;
  if (!Array.isArray(argv) || !argv.every(isString)) return null;
  return {
    name,
    transport: "stdio",
    digest: stdioDigest(command, argv),
    what: JSON.stringify({ command: clip(command), args: argv.map(clip) }),
    env_names: envNames,
    header_names: [],
    disabled: false,
    ...extra,
  };
}

// A remote reading, or null when there is no usable URL.
export function remoteReading(name, url, headerNames, extra = {}) {
  if (!isString(url) || url === "") return null;
  return {
    name,
    transport: "remote",
    digest: remoteDigest(url),
    what: JSON.stringify({ url: shownUrl(url) }),
    env_names: [],
    header_names: headerNames,
    disabled: false,
    ...extra,
  };
}

// Own enumerable keys of a plain object, or [] for anything else.
export const keysOf = (v) => (v !== null && typeof v === "object" && !Array.isArray(v) ? Object.keys(v) : []);

export const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
