#!/usr/bin/env bash
# Instructions (callgrind Ir) per unit of work for the rows of a bench:
# repeatable where wall-clock timings on a shared machine are not.
#
#   crates/bench/callgrind.sh                          # schedules: all rows, Ir per delay
#   crates/bench/callgrind.sh backon                   # some rows (and their staggered equivalents)
#   crates/bench/callgrind.sh --bench retry_loop       # retry_loop: all rows, Ir per call
#   crates/bench/callgrind.sh --bench retry_loop async-ok-staggered
#   crates/bench/callgrind.sh --bench limiter          # limiter: Ir per attempt
#   FEATURES=staggered/metrics crates/bench/callgrind.sh --bench retry_loop   # with a staggered feature on
#
# Each row runs twice under callgrind, SMALL and LARGE times (sequences of 10
# delays for schedules, calls for retry_loop), counting only inside
# `callgrind_region` (the timed loop). The difference of the two totals,
# divided by the difference in units, is the steady-state cost of one unit:
# one-off work (thread-local set-up, first entropy, entering the runtime)
# cancels out. Each row is compared with its base row: the staggered row of
# the same jitter (schedules, as a ratio) or the bare row of the same driver
# and path (retry_loop, as Ir over bare). The profiles stay in $OUT for
# callgrind_annotate, e.g.
#   callgrind_annotate --inclusive=yes "$OUT/staggered-full.large.out"
set -euo pipefail

bench=schedules
if [ "${1:-}" = "--bench" ]; then
    bench=${2:?"callgrind.sh: --bench needs schedules, retry_loop or limiter"}
    shift 2
fi
case $bench in
    schedules) flag=--sequences units=10 unit=delay ;;
    retry_loop) flag=--calls units=1 unit=call ;;
    limiter) flag=--calls units=1 unit=attempt ;;
    *) echo "callgrind.sh: no bench named $bench (schedules, retry_loop, limiter)" >&2; exit 2 ;;
esac
SMALL=${SMALL:-1000}
LARGE=${LARGE:-11000}
root=$(cd "$(dirname "$0")/../.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
OUT=${OUT:-$target/callgrind}
mkdir -p "$OUT"

command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind is not installed" >&2; exit 2; }

# FEATURES=staggered/metrics measures staggered with that feature on.
exe=$(cd "$root" && cargo bench -p bench --bench "$bench" ${FEATURES:+--features "$FEATURES"} --no-run --message-format=json 2>/dev/null \
    | grep -o '"executable":"[^"]*"' | cut -d'"' -f4 | grep "/$bench-" | tail -n 1)
[ -x "$exe" ] || { echo "callgrind.sh: could not build the $bench bench" >&2; exit 1; }

# Total Ir counted in the region for COUNT units of ROW.
ir() {
    local row=$1 count=$2 file=$3
    valgrind --tool=callgrind --callgrind-out-file="$file" --toggle-collect='*callgrind_region*' \
        "$exe" --once "$row" "$flag" "$count" >/dev/null 2>&1
    awk '/^(summary|totals):/ { print $2; exit }' "$file"
}

declare -A base per_unit
all=()
while read -r row eq; do
    all+=("$row")
    base[$row]=$eq
done < <("$exe" --list)

# The rows asked for (all by default), each after its base row.
rows=()
add() { [[ " ${rows[*]} " == *" $1 "* ]] || rows+=("$1"); }
for row in "${@:-${all[@]}}"; do
    [ -n "${base[$row]:-}" ] || { echo "callgrind.sh: no row named $row; rows: ${all[*]}" >&2; exit 2; }
    add "${base[$row]}"
    add "$row"
done

if [ "$bench" = schedules ]; then
    printf '%-24s %12s %10s   %s\n' row "Ir/$unit" ratio "(ratio: Ir of the row / Ir of staggered with the same jitter)"
else
    printf '%-28s %12s %10s   %s\n' row "Ir/$unit" "over bare" "(Ir of the row - Ir of the bare row of its driver and path)"
fi
for row in "${rows[@]}"; do
    small=$(ir "$row" "$SMALL" "$OUT/$row.small.out")
    large=$(ir "$row" "$LARGE" "$OUT/$row.large.out")
    per_unit[$row]=$(awk -v a="$small" -v b="$large" -v d="$(( (LARGE - SMALL) * units ))" 'BEGIN { printf "%.1f", (b - a) / d }')
    eq=${base[$row]}
    if [ "$eq" = "$row" ] || [ -z "${per_unit[$eq]:-}" ]; then
        cmp="-"
    elif [ "$bench" = schedules ]; then
        cmp=$(awk -v a="${per_unit[$row]}" -v b="${per_unit[$eq]}" 'BEGIN { printf "%.2fx", a / b }')
    else
        cmp=$(awk -v a="${per_unit[$row]}" -v b="${per_unit[$eq]}" 'BEGIN { printf "%+.1f", a - b }')
    fi
    if [ "$bench" = schedules ]; then
        printf '%-24s %12s %10s\n' "$row" "${per_unit[$row]}" "$cmp"
    else
        printf '%-28s %12s %10s\n' "$row" "${per_unit[$row]}" "$cmp"
    fi
done
echo "profiles: $OUT"
