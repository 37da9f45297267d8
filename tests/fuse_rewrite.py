#!/usr/bin/env python3
"""What a convention of template text would cost and gain, before writing a rule for it.

The full-size ground truths and the 2k ones write some values differently,
and the issue holds fuse to both: the full convention wins where they
disagree, and the Loghub-2.0 2k ground truth keeps a PA floor of .70.  A
change that only rewrites template text, or that only joins templates, can be
measured without touching the parser: this script parses each Loghub-2.0 2k
sample with a build, rewrites every line's template with each REWRITE, and
prints GA and PA against the Loghub-2.0 2k ground truth and, for the 8 sets
whose full template list we have, against the full convention (each line
labelled with the listed template it matches, the most literal one, as
`logtk bench parse --full-lists` labels it).  Lines are grouped by their
template's text, as fuse names templates.

Rewrites (cumulative, in the order given; "none" is the build as it is):
  key-empty  an empty value after "key=" is "<*>" ("logname= uid=<*>" ->
             "logname=<*> uid=<*>", as OpenSSH's full list writes it)
  key-word   a word after "key=" is "<*>" ("tty=ssh" -> "tty=<*>")
  transitions  two places one word apart, "to" or an arrow between them, of
             four or more templates equal but there, some word printed at
             the first place printed at the second in another ("from NEW
             to UNASSIGNED", "from UNASSIGNED to ASSIGNED"): a state
             machine's states, both "<*>" (fuse's rule `transitions`
             since; on a build with it, "none" and this read alike)
  subsume    a template whose every word equals the word of a more general
             template of the same log, or falls under its "<*>" (as many
             words), joins it: Hadoop's "Registering class A for class B",
             learned before either slot varied, joins "Registering class <*>
             for class <*>"

usage: tests/fuse_rewrite.py BUILD_DIR [REWRITE ...]
  BUILD_DIR  a build (its logtk is run); REWRITE default: key-empty key-word
Needs $LOGTK_LOGHUB2 and $LOGTK_LOGHUB2_FULL (its templates/ folder).
"""
import collections
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fuse_scale import grouping_scores, norm, parsed_templates  # noqa: E402  (the same run)
from fuse_unseen import best_match, compile_template, read_rows  # noqa: E402


def word_glob(word):
    return re.compile('.*?'.join(re.escape(p) for p in word.split('<*>')) + r'\Z', re.S)


def subsume(texts):
    """Each template joins the most general one of the same word count that covers it."""
    by_count = collections.defaultdict(list)
    for t in sorted(set(texts)):
        by_count[len(t.split())].append(t)
    into = {}
    for same in by_count.values():
        globs = {t: [word_glob(w) for w in t.split()] for t in same}
        for a in same:
            words, best = a.split(), a
            for b in same:
                if b.count('<*>') > best.count('<*>') and \
                        all(g.match(w) for g, w in zip(globs[b], words)):
                    best = b
            into[a] = best
    return [into[t] for t in texts]


def transitions(texts, least=4, arrows=('to', '->', '=>', '-->')):
    """Two places one word apart, the word between them "to" or an arrow,
    become "<*>" in a family of `least` or more templates equal but there
    (plain words at both) when some word printed at the first place is
    printed at the second in another: a state machine's states ("from NEW to
    UNASSIGNED", "from UNASSIGNED to ASSIGNED"; "S_STARTING -> S_PENDING")."""
    split = sorted({t: t.split() for t in texts}.items())
    into = {t: list(w) for t, w in split}
    families = collections.defaultdict(list)
    for t, words in split:
        for i in range(len(words) - 2):
            if words[i + 1] in arrows and '<' not in words[i] and '<' not in words[i + 2]:
                families[(len(words), i, tuple(words[:i] + words[i + 1:i + 2] +
                                               words[i + 3:]))].append(words)
    for (_, i, _), members in families.items():
        if len(members) >= least and \
                {w[i] for w in members} & {w[i + 2] for w in members}:
            for w in members:
                into[' '.join(w)][i] = into[' '.join(w)][i + 2] = '<*>'
    return [' '.join(into[t]) for t in texts]


def each(rewrite):
    return lambda texts: [rewrite(t) for t in texts]


REWRITES = {
    'key-empty': each(lambda t: re.sub(r'(?<=[A-Za-z0-9_])=(?=\s|$)', '=<*>', t)),
    'key-word': each(lambda t: re.sub(r'(?<=[A-Za-z0-9_])=[A-Za-z_][A-Za-z0-9_]*(?=[\s,;]|$)',
                                      '=<*>', t)),
    'subsume': subsume,
    'transitions': transitions,
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
    print('dataset\trewrite\tloghub2_GA\tloghub2_PA\tfull_list_GA\tfull_list_PA')
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
        labels = [norm(r['EventTemplate']) for r in rows]
        for step in steps:
            if step != 'none':
                texts = [norm(t) for t in REWRITES[step](texts)]
            ga2k = grouping_scores(labels, texts)[0]
            pa2k = sum(a == b for a, b in zip(texts, labels)) / len(rows)
            sums[step][0].append((ga2k, pa2k))
            cells = '\t'
            if full is not None:
                pairs = [(a, b) for a, b in zip(texts, full) if b is not None]
                gafl = grouping_scores([b for _, b in pairs], [a for a, _ in pairs])[0]
                pafl = sum(a == b for a, b in pairs) / len(pairs)
                sums[step][1].append((gafl, pafl))
                cells = '%.4f\t%.4f' % (gafl, pafl)
            print('%s\t%s\t%.4f\t%.4f\t%s' % (name, step, ga2k, pa2k, cells))
    for step in steps:
        l2, fl = sums[step]
        print('mean\t%s\t%.4f\t%.4f\t%.4f\t%.4f' % (
            step, sum(g for g, _ in l2) / len(l2), sum(p for _, p in l2) / len(l2),
            sum(g for g, _ in fl) / len(fl), sum(p for _, p in fl) / len(fl)))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
