#!/usr/bin/env bash
# Builds the static x86_64 Linux release of mcp-warden into dist/ and proves it:
#
#   scripts/build-release.sh                 # dist/: binary, .sha256, completions, man pages
#   scripts/build-release.sh --profile static-check --out target/static-check-dist
#                                            # the same checks on a cheap unoptimized build (CI)
#
# The binary is musl static-pie (x86_64-unknown-linux-musl): no ELF interpreter
# and no shared library at run time, and a process start without glibc's CPUID
# probing (docs/install.md, "Why musl"). It needs the target's standard library
# (added with rustup when missing) and musl-gcc (Debian: musl-tools) for the C in
# `ring`. `--target` keeps RUSTFLAGS off build scripts and proc-macros, and the
# separate target dir (target/static) leaves the normal build's cache alone. The
# build fails unless:
#   * `readelf -l` shows no INTERP program header and `readelf -d` no NEEDED entry;
#   * `mcp-warden sandbox selftest` passes from the built binary;
#   * `strace -f` of `doctor` on a temporary home shows no socket/connect and no
#     execve of anything but mcp-warden itself (skipped only when strace is missing
#     and MCP_WARDEN_REQUIRE_SANDBOX is not 1).
set -euo pipefail
cd "$(dirname "$0")/.."

profile=release
out=dist
while [ $# -gt 0 ]; do
  case "$1" in
    --profile) profile="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "error: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done

target=x86_64-unknown-linux-musl
target_dir=target/static
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n1)
[ -n "$version" ] || { echo "error: no package version in Cargo.toml" >&2; exit 2; }
name="mcp-warden-$version-$target"

fail() { echo "error: $*" >&2; exit 1; }
say() { printf '==> %s\n' "$*"; }

if [ ! -d "$(rustc --print sysroot)/lib/rustlib/$target" ]; then
  command -v rustup >/dev/null || fail "the $target standard library is missing and rustup is not installed"
  say "rustup target add $target"
  rustup target add "$target"
fi
# `ring` (TLS for `pin --url`) compiles C: for musl, with musl's headers.
musl_cc=${CC_x86_64_unknown_linux_musl:-musl-gcc}
command -v "$musl_cc" >/dev/null ||
  fail "$musl_cc is required to build for $target (Debian and Ubuntu: apt-get install musl-tools)"

say "cargo build --profile $profile --target $target (static musl)"
start=$SECONDS
CC_x86_64_unknown_linux_musl="$musl_cc" RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+crt-static" \
  cargo build --locked --profile "$profile" --target "$target" --target-dir "$target_dir" --bin mcp-warden
# Cargo names the `dev` profile's directory `debug`.
profile_dir=$profile
[ "$profile" = dev ] && profile_dir=debug
built="$target_dir/$target/$profile_dir/mcp-warden"
real=$(readlink -f "$built")
say "built in $((SECONDS - start)) s: $built ($(stat -c %s "$built") bytes)"

say "static linking (readelf)"
command -v readelf >/dev/null || fail "readelf is required (binutils)"
if readelf -lW "$built" | grep -q 'INTERP'; then
  fail "$built has an INTERP program header: it is not statically linked"
fi
needed=$(readelf -dW "$built" | grep '(NEEDED)' || true)
[ -z "$needed" ] || fail "$built needs shared libraries:
$needed"

say "sandbox selftest from the static binary"
"$built" sandbox selftest || fail "sandbox selftest failed from $built"

say "strace: doctor runs nothing and opens no socket"
if command -v strace >/dev/null; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  mkdir -p "$tmp/home/.cursor" "$tmp/work"
  printf '{"mcpServers": {"a": {"command": "/bin/true"}, "b": {"url": "http://h.example.com/mcp"}}}' \
    >"$tmp/home/.cursor/mcp.json"
  code=0
  (cd "$tmp/work" && env -i HOME="$tmp/home" strace -f -qq -o "$tmp/trace" \
    -e trace=execve,execveat,socket,connect "$real" doctor --json --home "$tmp/home" --platform linux \
    >/dev/null 2>"$tmp/stderr") || code=$?
  [ "$code" -eq 1 ] || fail "doctor exited $code under strace (expected 1: a server without a lock): $(cat "$tmp/stderr")"
  if grep -E '(socket|connect)\(' "$tmp/trace"; then fail "doctor opened a socket"; fi
  if grep -E 'execve(at)?\(' "$tmp/trace" | grep -v ' = -1 ' | grep -vF -e "$built" -e "$real" -e '/proc/self/exe'; then
    fail "doctor executed something other than mcp-warden"
  fi
elif [ "${MCP_WARDEN_REQUIRE_SANDBOX:-}" = 1 ]; then
  fail "strace is required (MCP_WARDEN_REQUIRE_SANDBOX=1)"
else
  echo "skipping: strace is not installed"
fi

say "dist: $out/"
rm -rf "$out"
mkdir -p "$out/completions" "$out/man"
cp "$built" "$out/$name"
(cd "$out" && sha256sum "$name" >"$name.sha256")
for shell in bash zsh fish powershell elvish; do
  "$built" completions "$shell" >"$out/completions/mcp-warden.$shell"
done
"$built" man >"$out/man/mcp-warden.1"
# `mcp-warden man` names every page it can print when asked for one it cannot.
pages=$("$built" man . 2>&1 >/dev/null | sed -n 's/.*name a command (\(.*\))$/\1/p' | tr -d ',') || true
[ -n "$pages" ] || fail "could not list the man pages"
for page in $pages; do
  "$built" man "$page" >"$out/man/mcp-warden-$page.1"
done
say "done: $(ls "$out" | tr '\n' ' ')"
