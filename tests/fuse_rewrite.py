#!/usr/bin/env python3
"""What a convention of template text would cost and gain, before writing a rule for it.

The full-size ground truths and the 2k ones write some values differently,
and the issue holds fuse to both: the full convention wins where they
disagree, and the Loghub-2.0 2k ground truth keeps a PA floor of .70.  A
change that only rewrites template text (no line changes its group) can be
measured without touching the parser: this script parses each Loghub-2.0 2k
sample with a build, rewrites every line's template with each REWRITE, and
prints the PA against the Loghub-2.0 2k ground truth and, for the 8 sets
whose full template list we have, against the full convention (each line
labelled with the listed template it matches, the most literal one, as
`logtk bench parse --full-lists` labels it).  PA only: GA and FGA are those
of the build, since groups do not change.

Rewrites (cumulative, in the order given; "none" is the build as it is):
  key-empty  an empty value after "key=" is "<*>" ("logname= uid=<*>" ->
             "logname=<*> uid=<*>", as OpenSSH's full list writes it)
  key-word   a word after "key=" is "<*>" ("tty=ssh" -> "tty=<*>")

usage: tests/fuse_rewrite.py BUILD_DIR [REWRITE ...]
  BUILD_DIR  a build (its logtk is run); REWRITE default: key-empty key-word
Needs $LOGTK_LOGHUB2 and $LOGTK_LOGHUB2_FULL (its templates/ folder).
"""
import csv
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fuse_scale import norm, parsed_templates  # noqa: E402  (the same run)
from fuse_unseen import best_match, compile_template, read_rows  # noqa: E402

REWRITES = {
    'key-empty': lambda t: re.sub(r'(?<=[A-Za-z0-9_])=(?=\s|$)', '=<*>', t),
    'key-word': lambda t: re.sub(r'(?<=[A-Za-z0-9_])=[A-Za-z_][A-Za-z0-9_]*(?=[\s,;]|$)',
                                 '=<*>', t),
}


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    logtk = os.path.join(argv[1], 'logtk')
    names = argv[2:] or ['key-empty', 'key-word']
    for n in names:
        if n not in REWRITES:
            sys.stderr.write('%s: unknown rewrite %r (%s)\n' % (argv[0], n, ', '.join(REWRITES)))
            return 2
    sample_dir = os.path.join(os.environ.get('LOGTK_LOGHUB2', ''), '2k_dataset')
    list_dir = os.path.join(os.environ.get('LOGTK_LOGHUB2_FULL', ''), 'templates')
    if not os.path.isdir(sample_dir) or not os.path.isdir(list_dir):
        sys.stderr.write('%s: set LOGTK_LOGHUB2 and LOGTK_LOGHUB2_FULL\n' % argv[0])
        return 2
    steps = ['none'] + names
    print('dataset\trewrite\tloghub2_PA\tfull_list_PA')
    sums = {s: ([], []) for s in steps}
    for name in sorted(os.listdir(sample_dir)):
        base = os.path.join(sample_dir, name, name + '_2k.log')
        rows = read_rows(base + '_structured.csv')
        ours = parsed_templates(logtk, name, 'fuse', base)
        list_path = os.path.join(list_dir, name + '_full.log_templates.csv')
        full = None
        if os.path.exists(list_path):
            listed = [r['EventTemplate'] for r in read_rows(list_path)]
            compiled = [compile_template(t) for t in listed]
            full = []
            for r in rows:
                m = best_match(compiled, r['Content'].strip())
                full.append(norm(listed[m[0]]) if m else None)
        texts = [norm(t) for t in ours]
        for step in steps:
            if step != 'none':
                texts = [norm(REWRITES[step](t)) for t in texts]
            pa2k = sum(a == norm(r['EventTemplate']) for a, r in zip(texts, rows)) / len(rows)
            sums[step][0].append(pa2k)
            cell = ''
            if full is not None:
                pairs = [(a, b) for a, b in zip(texts, full) if b is not None]
                pafl = sum(a == b for a, b in pairs) / len(pairs)
                sums[step][1].append(pafl)
                cell = '%.4f' % pafl
            print('%s\t%s\t%.4f\t%s' % (name, step, pa2k, cell))
    for step in steps:
        l2, fl = sums[step]
        print('mean\t%s\t%.4f\t%.4f' % (step, sum(l2) / len(l2), sum(fl) / len(fl)))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
