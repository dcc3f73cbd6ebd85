#!/usr/bin/env bash
# The GitHub Action's work, runnable outside GitHub: download the release binary
# of the version the action is pinned to, verify its SHA-256 (fail closed), run
# `mcp-warden doctor --sarif`, and exit with doctor's exit code.
#
# Every input arrives in an environment variable, never spliced into this script,
# and every value is handed to doctor as one argument of its own: nothing here is
# evaluated, word-split or globbed.
#
#   MCP_WARDEN_VERSION           the release to install (the action's constant)
#   MCP_WARDEN_RELEASE_BASE_URL  where the release assets are (default: the
#                                GitHub release of MCP_WARDEN_ACTION_REPOSITORY)
#   MCP_WARDEN_ACTION_REPOSITORY owner/repo the action was fetched from
#   MCP_WARDEN_SHA256            optional: the digest the binary must have
#   INPUT_CONFIG                 config paths, one a line (each becomes --config;
#                                any path also adds --no-discover)
#   INPUT_FAIL_ON                --fail-on severity (empty: any finding fails)
#   INPUT_ARGS                   extra doctor arguments, one a line
#   INPUT_SARIF                  where the SARIF report goes (default: a new
#                                file under RUNNER_TEMP)
#
# Exit codes: doctor's own (0 clean, 1 findings, 2 unreadable config or usage
# error); 2 when the binary cannot be downloaded or verified, before anything ran.
# On GitHub, `sarif=PATH` is written to GITHUB_OUTPUT once doctor wrote the report.
set -euo pipefail

TARGET=x86_64-unknown-linux-musl

die() {
  printf 'error: %s\n' "$*" >&2
  exit 2
}

version=${MCP_WARDEN_VERSION:-}
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]] ||
  die "MCP_WARDEN_VERSION '${version}' is not a release version (X.Y.Z)"

os_arch="$(uname -s) $(uname -m)"
[[ $os_arch == "Linux x86_64" ]] ||
  die "the release binary is built for ${TARGET} only; this runner is ${os_arch}"

base=${MCP_WARDEN_RELEASE_BASE_URL:-}
if [[ -z $base ]]; then
  repository=${MCP_WARDEN_ACTION_REPOSITORY:-}
  [[ $repository =~ ^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$ ]] ||
    die "cannot tell which repository the action came from ('${repository}'); set the release-base-url input"
  base="https://github.com/${repository}/releases/download/v${version}"
fi
base=${base%/}

asset="mcp-warden-${version}-${TARGET}"
work_root=${RUNNER_TEMP:-${TMPDIR:-/tmp}}
install_dir=$(mktemp -d "${work_root%/}/mcp-warden-install.XXXXXXXX")
binary="${install_dir}/${asset}"

# https (and file:// for a local mirror) only, redirects to https only: a
# release download never falls back to cleartext.
fetch() {
  curl --fail --silent --show-error --location \
    --proto '=https,file' --proto-redir '=https' \
    --retry 3 --max-time 300 \
    --output "$2" -- "$1"
}

# One `error:` line per failure, curl's reason in it.
if ! why=$(fetch "${base}/${asset}.sha256" "${binary}.sha256" 2>&1); then
  die "cannot download the checksum ${base}/${asset}.sha256 (${why//$'\n'/ }); refusing to run an unverified binary"
fi
if ! why=$(fetch "${base}/${asset}" "$binary" 2>&1); then
  die "cannot download the release binary ${base}/${asset} (${why//$'\n'/ })"
fi

# sha256sum format, exactly one line naming this asset: `<64 hex>  <asset>` (or
# `*<asset>` in binary mode). The file name in it is compared, never opened.
checksum_line=$(head -c 4096 -- "${binary}.sha256")
[[ $(wc -l <"${binary}.sha256") -le 1 ]] ||
  die "${asset}.sha256 holds more than one line; expected '<sha256>  ${asset}'"
checksum_line=${checksum_line%$'\n'}
[[ $checksum_line =~ ^([0-9a-fA-F]{64})\ [\ *](.+)$ ]] ||
  die "${asset}.sha256 is not in sha256sum format; expected '<sha256>  ${asset}'"
expected=${BASH_REMATCH[1],,}
named=${BASH_REMATCH[2]}
[[ $named == "$asset" ]] ||
  die "${asset}.sha256 is for '${named}', not for ${asset}"

actual=$(sha256sum -- "$binary")
actual=${actual%% *}
[[ $actual == "$expected" ]] ||
  die "SHA-256 mismatch for ${asset}: the release checksum says ${expected}, the download is ${actual}; not running it"

pinned=${MCP_WARDEN_SHA256:-}
if [[ -n $pinned ]]; then
  [[ ${pinned,,} == "$actual" ]] ||
    die "SHA-256 mismatch for ${asset}: the sha256 input says ${pinned}, the download is ${actual}; not running it"
fi
printf 'mcp-warden %s verified: sha256 %s\n' "$version" "$actual"

chmod 0755 -- "$binary"
ln -s -- "$asset" "${install_dir}/mcp-warden"
if [[ -n ${GITHUB_PATH:-} ]]; then
  printf '%s\n' "$install_dir" >>"$GITHUB_PATH"
fi

sarif=${INPUT_SARIF:-}
if [[ -z $sarif ]]; then
  sarif="${install_dir}/mcp-warden.sarif"
fi
# The path is echoed into GITHUB_OUTPUT, one `key=value` a line.
[[ $sarif != *$'\n'* && $sarif != *$'\r'* ]] || die "the sarif path holds a line break"

doctor_args=(doctor "--sarif=${sarif}")
configs=0
while IFS= read -r line || [[ -n $line ]]; do
  line=${line%$'\r'}
  [[ $line =~ ^[[:space:]]*$ ]] && continue
  doctor_args+=("--config=${line}")
  configs=$((configs + 1))
done <<<"${INPUT_CONFIG:-}"
if ((configs > 0)); then
  doctor_args+=(--no-discover)
fi
if [[ -n ${INPUT_FAIL_ON:-} ]]; then
  doctor_args+=("--fail-on=${INPUT_FAIL_ON}")
fi
while IFS= read -r line || [[ -n $line ]]; do
  line=${line%$'\r'}
  [[ -z $line ]] && continue
  doctor_args+=("$line")
done <<<"${INPUT_ARGS:-}"

status=0
"$binary" "${doctor_args[@]}" || status=$?

if [[ -f $sarif && ! -L $sarif && -n ${GITHUB_OUTPUT:-} ]]; then
  printf 'sarif=%s\n' "$sarif" >>"$GITHUB_OUTPUT"
fi
exit "$status"
