#!/usr/bin/env bash
# Instructions (callgrind Ir) per delay for every row of the schedules bench:
# repeatable where wall-clock timings on a shared machine are not.
#
#   crates/bench/callgrind.sh            # all rows
#   crates/bench/callgrind.sh backon     # some rows (and their staggered equivalents)
#
# Each row runs twice under callgrind, with SMALL and LARGE sequences of 10
# delays, counting only inside `callgrind_region` (the timed loop). The
# difference of the two totals, divided by the difference in delays, is the
# steady-state cost of one delay: one-off work (thread-local set-up, first
# entropy) cancels out. The profiles stay in $OUT for callgrind_annotate, e.g.
#   callgrind_annotate --inclusive=yes "$OUT/staggered-full.large.out"
set -euo pipefail

SMALL=${SMALL:-1000}
LARGE=${LARGE:-11000}
root=$(cd "$(dirname "$0")/../.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
OUT=${OUT:-$target/callgrind}
mkdir -p "$OUT"

command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind is not installed" >&2; exit 2; }

exe=$(cd "$root" && cargo bench -p bench --bench schedules --no-run --message-format=json 2>/dev/null \
    | grep -o '"executable":"[^"]*"' | cut -d'"' -f4 | grep '/schedules-' | tail -n 1)
[ -x "$exe" ] || { echo "callgrind.sh: could not build the schedules bench" >&2; exit 1; }

# Total Ir counted in the region for SEQUENCES sequences of ROW.
ir() {
    local row=$1 sequences=$2 file=$3
    valgrind --tool=callgrind --callgrind-out-file="$file" --toggle-collect='*callgrind_region*' \
        "$exe" --once "$row" --sequences "$sequences" >/dev/null 2>&1
    awk '/^(summary|totals):/ { print $2; exit }' "$file"
}

declare -A equivalent per_delay
all=()
while read -r row eq; do
    all+=("$row")
    equivalent[$row]=$eq
done < <("$exe" --list)

# The rows asked for (all by default), each after its staggered equivalent.
rows=()
add() { [[ " ${rows[*]} " == *" $1 "* ]] || rows+=("$1"); }
for row in "${@:-${all[@]}}"; do
    [ -n "${equivalent[$row]:-}" ] || { echo "callgrind.sh: no row named $row; rows: ${all[*]}" >&2; exit 2; }
    add "${equivalent[$row]}"
    add "$row"
done

printf '%-24s %12s %10s   %s\n' row "Ir/delay" ratio "(ratio: Ir of the row / Ir of staggered with the same jitter)"
for row in "${rows[@]}"; do
    small=$(ir "$row" "$SMALL" "$OUT/$row.small.out")
    large=$(ir "$row" "$LARGE" "$OUT/$row.large.out")
    per_delay[$row]=$(awk -v a="$small" -v b="$large" -v d="$(( (LARGE - SMALL) * 10 ))" 'BEGIN { printf "%.1f", (b - a) / d }')
    eq=${equivalent[$row]}
    if [ "$eq" = "$row" ] || [ -z "${per_delay[$eq]:-}" ]; then
        ratio="-"
    else
        ratio=$(awk -v a="${per_delay[$row]}" -v b="${per_delay[$eq]}" 'BEGIN { printf "%.2fx", a / b }')
    fi
    printf '%-24s %12s %10s\n' "$row" "${per_delay[$row]}" "$ratio"
done
echo "profiles: $OUT"
