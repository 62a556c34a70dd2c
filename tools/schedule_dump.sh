#!/usr/bin/env bash
# Records every schedule the fusion and op suites make (tests/schedule/schedule_dump.cpp) into
# DIR/fusion.txt and DIR/ops.txt. Run it before and after a scheduler change and compare:
#   tools/schedule_dump.sh /tmp/before; <change>; tools/schedule_dump.sh /tmp/after; diff -r /tmp/before /tmp/after
# usage: tools/schedule_dump.sh DIR [BUILD_DIR (default build/dev)]
set -euo pipefail
out=${1:?usage: tools/schedule_dump.sh DIR [BUILD_DIR]}
build=${2:-build/dev}
cmake --build "$build" -j2 --target schedule_dump_fusion schedule_dump_ops >/dev/null
mkdir -p "$out"
CGRAD_SCHEDULE_DUMP="$out/fusion.txt" CGRAD_BACKEND=jit "$build/tests/schedule/schedule_dump_fusion" >/dev/null
CGRAD_SCHEDULE_DUMP="$out/ops.txt" CGRAD_BACKEND=interpreter "$build/tests/schedule/schedule_dump_ops" >/dev/null
echo "schedules: $(grep -c '^==' "$out/fusion.txt") (fusion), $(grep -c '^==' "$out/ops.txt") (ops) in $out"
