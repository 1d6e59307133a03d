#!/bin/sh
# The census against the independent brute force, in one run: builds
# brute_force.c, then times it and `bbx stats` on the same configuration
# with /usr/bin/time -v (wall clock, CPU time, peak memory), the machine's
# load before each, and checks that their ambiguity tables agree.
#
#     benches/brute/measure.sh ATOMS WIDTH [BBX] [RUNS]
#
# BBX is the bbx binary (target/release/bbx by default); RUNS the runs of
# bbx (3 by default). The brute force needs about (4 WIDTH) bytes a
# molecule (A6_B8: 2.4 GB).
set -eu
atoms=$1
width=$2
bbx=${3:-target/release/bbx}
runs=${4:-3}
here=$(dirname "$0")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cc -O2 -march=native -pthread -o "$scratch/brute_force" "$here/brute_force.c"

line() { # NAME TIMEFILE
    awk -v name="$1" -F': ' '
        /Elapsed/ { wall = $2 }
        /User time/ { user = $2 }
        /System time/ { sys = $2 }
        /Maximum resident/ { mem = $2 }
        END { printf "%s: wall %s, CPU %.2f s (user %s + system %s), peak %.0f MB\n", name, wall, user + sys, user, sys, mem / 1024 }' "$2"
}

echo "load before the brute force: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/time -v "$scratch/brute_force" "$atoms" "$width" 2 >"$scratch/brute.txt" 2>"$scratch/brute.time"
line "brute force" "$scratch/brute.time"
i=1
while [ "$i" -le "$runs" ]; do
    echo "load before bbx run $i: $(cut -d' ' -f1-3 /proc/loadavg)"
    /usr/bin/time -v "$bbx" stats "A${atoms}_B${width}" --census --json -q --work-dir "$scratch" \
        >"$scratch/bbx.json" 2>"$scratch/bbx.time"
    line "bbx stats A${atoms}_B${width}" "$scratch/bbx.time"
    i=$((i + 1))
done
# The two tables, as "n spectra molecules" lines.
grep -E '^[0-9]+ ' "$scratch/brute.txt" >"$scratch/brute.rows"
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
for row in r["ambiguity"]:
    print(row["molecules_per_spectrum"], row["spectra"], row["molecules"])
' "$scratch/bbx.json" >"$scratch/bbx.rows"
if cmp -s "$scratch/brute.rows" "$scratch/bbx.rows"; then
    echo "the ambiguity tables agree ($(wc -l <"$scratch/bbx.rows") rows)"
else
    echo "the ambiguity tables differ:"
    diff "$scratch/brute.rows" "$scratch/bbx.rows" || true
    exit 1
fi
