#!/bin/sh
# drain_reference.sh - logtk's Drain against the reference's published figures:
# `logtk bench parse --parser drain --gt loghub2` must give, on each of the 14
# Loghub-2.0 2k samples, the GA, PA, FGA and FTA that the Loghub-2.0 paper
# (ISSTA'24, RQ2 table: $LOGTK_LOGHUB2/RQ2/effectiveness_results.csv, Drain's
# "2k / full" cells) published for the Python Drain, to their third decimal
# (within .0006, the table rounding).  It holds because Loghub-2.0's ground
# truths bring its benchmark's settings (logtk_dataset_configure_for()
# "loghub2": HDFS without the address regex, Spark without regexes).
# Needs LOGTK_LOGHUB2 (skipped without it).
LOGTK=${LOGTK:-./logtk}
if [ -z "${LOGTK_LOGHUB2:-}" ] || [ ! -f "$LOGTK_LOGHUB2/RQ2/effectiveness_results.csv" ]; then
    echo "SKIP: LOGTK_LOGHUB2 is not set to the Loghub-2.0 folder"
    exit 77
fi
ours=$(mktemp "${TMPDIR:-/tmp}/logtk-drain-ref.XXXXXX") || exit 1
trap 'rm -f "$ours"' EXIT INT TERM
"$LOGTK" bench parse --parser drain --gt loghub2 --loghub2 "$LOGTK_LOGHUB2" --quiet > "$ours" ||
    exit 1
# the table's cells read "2k / full"; its rows "<Dataset> <Metric>", Drain its third column
awk -F'\t' -v table="$LOGTK_LOGHUB2/RQ2/effectiveness_results.csv" '
    BEGIN {
        while ((getline line < table) > 0) {
            n = split(line, f, ",")
            if (n < 3 || split(f[1], key, " ") != 2 || key[1] == "Average")
                continue
            sub(/ .*/, "", f[3])
            published[key[1] " " key[2]] = f[3]
        }
    }
    FNR == 1 || $1 == "mean" { next }
    {
        split("GA PA FGA FTA", metric, " ")
        for (m = 1; m <= 4; m++) {
            k = $1 " " metric[m]
            if (!(k in published)) {
                printf "no published Drain %s\n", k
                bad++
                continue
            }
            d = $(4 + m) - published[k]
            if (d < 0)
                d = -d
            checked++
            if (d > 0.0006) {
                printf "%s: ours %s, published %s\n", k, $(4 + m), published[k]
                bad++
            }
        }
    }
    END {
        printf "%d figures checked, %d off\n", checked, bad
        exit !(checked == 56 && bad == 0)
    }' "$ours"
