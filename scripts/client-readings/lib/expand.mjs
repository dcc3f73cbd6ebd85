// Variable expansion as each client does it, always against an EMPTY
// environment (the harness cannot know the user's; doctor is run with none).
import { basename } from "node:path";

// Claude Code (envExpansion.ts): /\$\{([^}]+)\}/g, `varContent.split(':-', 2)`
// (JavaScript's split with a limit drops everything after the second piece, so
// `${X:-a:-b}` gives `a`), unset without default -> the literal `${X}`.
export function claudeCode(value) {
  if (typeof value !== "string") return value;
  return value.replace(/\$\{([^}]+)\}/g, (match, content) => {
    const [, fallback] = content.split(":-", 2);
    return fallback !== undefined ? fallback : match;
  });
}

// VS Code's configuration resolver: every `${...}` (lazy match); a variable
// whose text holds `${` is not resolved; unset `${env:X}` -> "". Variables
// whose value depends on editor state, or that prompt or run commands
// (`input:`, `command:`, `config:`), are left as written.
export function vscode(ctx) {
  return (value) => {
    if (typeof value !== "string") return value;
    return value.replace(/\$\{(.*?)\}/g, (match, text) => {
      if (text.includes("${")) return match;
      if (text.startsWith("env:")) return "";
      return predefined(ctx, text) ?? match;
    });
  };
}

// The editor variables VS Code and Cursor share; undefined for any other.
function predefined(ctx, text) {
  switch (text) {
    case "userHome":
      return ctx.home;
    case "workspaceFolder":
      return ctx.folder ?? undefined;
    case "workspaceFolderBasename":
      return ctx.folder ? basename(ctx.folder) : undefined;
    case "pathSeparator":
    case "/":
      return "/";
    default:
      return undefined;
  }
}

// Cursor ("Config interpolation", as quoted): `${env:NAME}`, `${userHome}`,
// `${workspaceFolder}`, `${workspaceFolderBasename}`, `${pathSeparator}`, `${/}`.
// What an unset `${env:X}` becomes is unknown: `unset` is "empty" or "literal".
export function cursor(ctx, unset) {
  return (value) => {
    if (typeof value !== "string") return value;
    return value.replace(/\$\{([^}]+)\}/g, (match, text) => {
      if (text.startsWith("env:")) return unset === "empty" ? "" : match;
      return predefined(ctx, text) ?? match;
    });
  };
}

// Windsurf: `${env:NAME}` (unset: unknown, "empty" or "literal"); `${file:...}`
// reads a file on the user's machine and is left as written here.
export function windsurf(unset) {
  return (value) => {
    if (typeof value !== "string") return value;
    return value.replace(/\$\{([^}]+)\}/g, (match, text) =>
      text.startsWith("env:") && unset === "empty" ? "" : match,
    );
  };
}

export const none = (value) => value;

// Apply `fn` to a string, every string of an array, or every value of an
// object (and its keys too when `keys` is set). Other values are kept.
export function deep(fn, value, keys = false) {
  if (typeof value === "string") return fn(value);
  if (Array.isArray(value)) return value.map((v) => deep(fn, v, keys));
  if (value !== null && typeof value === "object") {
    const out = {};
    for (const [k, v] of Object.entries(value)) {
      Object.defineProperty(out, keys ? fn(k) : k, { value: deep(fn, v, keys), enumerable: true, configurable: true, writable: true });
    }
    return out;
  }
  return value;
}
