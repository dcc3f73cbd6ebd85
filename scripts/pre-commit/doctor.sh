#!/usr/bin/env bash
# The pre-commit hook's entry: pre-commit appends the staged config files to the
# command line, doctor wants `--config` before each. Doctor options from the
# hook's `args:` go before a `--` (`args: [--fail-on=high, --]`); without a `--`,
# every argument is a file. A file name is never an option: each is passed as
# `--config=NAME`, and pre-commit only passes names matching the hook's `files:`,
# none of which is `--`.
set -euo pipefail

options=()
files=("$@")
for ((i = 0; i < $#; i++)); do
  if [[ ${files[i]} == -- ]]; then
    options=("${files[@]:0:i}")
    files=("${files[@]:i+1}")
    break
  fi
done
((${#files[@]} > 0)) || exit 0

configs=()
for file in "${files[@]}"; do
  configs+=("--config=${file}")
done
exec mcp-warden doctor --no-discover "${options[@]}" "${configs[@]}"
