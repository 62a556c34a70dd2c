#!/usr/bin/env bash
# Checks that every tracked C++ file is formatted as .clang-format says (clang-format 14, the
# version Debian 12 ships; other versions format some constructs differently). Run by ctest as
# the `format` test (label lint, dev preset). To fix what it reports:
#   tools/check_format.sh --fix
set -euo pipefail
cd "$(dirname "$0")/.."
cf=$(command -v clang-format-14 || command -v clang-format || true)
if [[ -z $cf ]]; then
  echo "cgrad: clang-format not found (apt-get install clang-format)" >&2
  exit 1
fi
if ! "$cf" --version | grep -q "version 14\."; then
  echo "cgrad: $("$cf" --version) is not clang-format 14; its output may differ from the committed style" >&2
fi
# tracked files and new ones git does not ignore (so --fix also formats files not yet added)
mapfile -t files < <(git ls-files --cached --others --exclude-standard -- '*.cpp' '*.h' '*.hpp' '*.cc')
if [[ ${1:-} == --fix ]]; then
  "$cf" -i "${files[@]}"
  exit 0
fi
if ! "$cf" --dry-run -Werror "${files[@]}" 2>/tmp/cgrad-format.$$; then
  grep -E "^[^ ].*: (error|warning):" /tmp/cgrad-format.$$ | cut -d: -f1 | sort -u | sed 's/^/not formatted: /'
  echo "cgrad: run tools/check_format.sh --fix" >&2
  rm -f /tmp/cgrad-format.$$
  exit 1
fi
rm -f /tmp/cgrad-format.$$
echo "cgrad: ${#files[@]} files formatted"
