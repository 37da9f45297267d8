#!/usr/bin/env python3
"""Message types a sample never showed: does a parser keep them apart?  A check, not a test.

The held-out sets are full-size logs; most of their templates never occur in
the 2k sample a parser was tuned on (one of them: 240 of its templates).
The full ground truths' template lists ($LOGTK_LOGHUB2_FULL/templates, 8
systems) name those templates, though their lines are not here.  This
script writes lines for them: for each listed template that no line of the
Loghub-2.0 2k sample matches, min(Occurrences, PER) lines, each "<*>"
filled with a value of that system's own, and a header taken from a 2k
line.  A slot prints values of one kind, so each slot draws its values from
one slot of a template the sample shows: one after the same text ("to <*>",
"fetcher#<*>") when there is one, else one whose values all hold a digit
(most variables are numbers, ids and addresses); a value is picked at random
among that slot's values for every line.  The log parsed is the 2k sample
and those lines, shuffled; every line's label is the listed template it
matches (most literal text wins, as `logtk bench parse --full-lists`
assigns them), so a generated line that happens to match a more specific
template counts as that one.

Scored on the generated lines only: GA (a line is right when its group is
exactly its label's group), PA (its template is its label), and the unseen
templates a parser gets exactly right (the group and the text).  The values
are not the real ones (a slot may get a value another slot printed), so the
figures compare parsers on the same lines; they are not the held-out score.

usage: tests/fuse_unseen.py BUILD_DIR [PER [PARSER [DATASET ...]]]
  BUILD_DIR  a build (its logtk is run); PER default 10; PARSER default fuse
Work files go to $TMPDIR/logtk-unseen.
"""
import collections
import csv
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fuse_scale import norm, parsed_templates, script_args  # noqa: E402  (the same run)


def compile_template(template):
    parts = template.split('<*>')
    rx = '(.*?)'.join(r'\s+'.join(re.escape(w) for w in re.split(r'\s+', p)) for p in parts)
    return re.compile(rx, re.S), len(template.replace('<*>', ''))


def best_match(compiled, content):
    """(index, slot values) of the matching template with the most literal text, or None."""
    best = None
    for k, (rx, literal) in enumerate(compiled):
        m = rx.fullmatch(content)
        if m and (best is None or literal > compiled[best[0]][1]):
            best = (k, m.groups())
    return best


def slot_context(template, j):
    """The text before slot j back to the word before it: "fetcher#", "to ", "="."""
    before = template.split('<*>')[j]
    m = re.search(r'(\S*\s*)$', before)
    return m.group(1) if m else ''


def read_rows(path):
    with open(path, encoding='utf-8', errors='replace', newline='') as f:
        return list(csv.DictReader(f))


def list_paths(list_dir, sample_dir, named):
    """{system: its full template list}: the 8 of LOGTK_LOGHUB2_FULL, and, for the
    systems in `named` only, a list that Loghub-2.0's 2k folder holds beside the sample:
    BGL_templates.csv, 376 events of the full BGL log as He et al. (DSN 2016) wrote
    them, not Loghub-2.0's 320 (no Occurrences; variables swallow their punctuation,
    "CE sym <*> at <*>", so its PA measures that older convention; its GA, the
    grouping, is the figure).  A list whose slots swallow the blanks around them
    (HDFS_templates.csv, "<*>Served block<*>to<*>") is left out: its lines cannot be
    written from it."""
    paths = {}
    for f in os.listdir(list_dir):
        if f.endswith('_full.log_templates.csv'):
            paths[f[:-len('_full.log_templates.csv')]] = os.path.join(list_dir, f)
    for name in named:
        path = os.path.join(sample_dir, name, name + '_templates.csv')
        if name not in paths and os.path.exists(path):
            rows = read_rows(path)
            glued = sum(1 for r in rows
                        if re.search(r'[A-Za-z]<\*>|<\*>[A-Za-z]', r['EventTemplate']))
            if glued * 2 < len(rows):
                paths[name] = path
    return paths


def make_log(sample_dir, list_path, name, per, rng, work):
    base = os.path.join(sample_dir, name, name + '_2k.log')
    if not os.path.exists(list_path) or not os.path.exists(base):
        return None
    listed = read_rows(list_path)
    templates = [r['EventTemplate'] for r in listed]
    occurrences = [int(r.get('Occurrences') or per) for r in listed]
    compiled = [compile_template(t) for t in templates]
    with open(base, encoding='utf-8', errors='replace', newline='\n') as f:
        raw = f.read().split('\n')
    if raw and raw[-1] == '':
        raw.pop()
    rows = read_rows(base + '_structured.csv')
    if len(rows) != len(raw):
        return None
    seen, headers = set(), []
    slot_values = collections.defaultdict(list)  # (template, slot) -> the values it showed
    lines, labels, generated = [], [], []
    for row, line in zip(rows, raw):
        content = row['Content']
        if line.endswith(content):
            headers.append(line[:len(line) - len(content)])
        hit = best_match(compiled, content)
        if hit is None:
            continue  # a line no listed template matches: left out, as bench does
        seen.add(hit[0])
        for j, v in enumerate(hit[1]):
            if v.strip():
                slot_values[(hit[0], j)].append(v)
        lines.append(line)
        labels.append(templates[hit[0]])
        generated.append(False)
    by_context = collections.defaultdict(list)
    for (k, j) in sorted(slot_values):
        by_context[slot_context(templates[k], j)].append((k, j))
    numeric = [kj for kj in sorted(slot_values)
               if all(any(c.isdigit() for c in v) for v in slot_values[kj])]
    if not numeric or not headers:
        return None
    unseen = [k for k in range(len(templates)) if k not in seen]
    for k in unseen:
        parts = templates[k].split('<*>')
        sources = [rng.choice(by_context.get(slot_context(templates[k], j)) or numeric)
                   for j in range(len(parts) - 1)]
        for _ in range(min(occurrences[k], per)):
            content = parts[0]
            for source, rest in zip(sources, parts[1:]):
                content += rng.choice(slot_values[source]) + rest
            content = content.replace('\n', ' ')
            hit = best_match(compiled, content)
            if hit is None:
                continue
            lines.append(rng.choice(headers) + content)
            labels.append(templates[hit[0]])
            generated.append(True)
    order = list(range(len(lines)))
    rng.shuffle(order)
    path = os.path.join(work, name + '_unseen.log')
    with open(path, 'w', encoding='utf-8', newline='\n') as f:
        for i in order:
            f.write(lines[i] + '\n')
    return (path, [labels[i] for i in order], [generated[i] for i in order],
            len(unseen), set(templates[k] for k in unseen))


def score(labels, predicted, generated, unseen_texts):
    gt = collections.Counter(labels)
    ours = collections.Counter(predicted)
    both = collections.Counter(zip(labels, predicted))
    right_group = set((a, b) for (a, b), c in both.items() if c == gt[a] == ours[b])
    picked = [i for i, g in enumerate(generated) if g]
    ga = sum(1 for i in picked if (labels[i], predicted[i]) in right_group) / len(picked)
    pa = sum(1 for i in picked if norm(labels[i]) == norm(predicted[i])) / len(picked)
    exact = sum(1 for (a, b) in right_group if a in unseen_texts and norm(a) == norm(b))
    shown = len(set(labels[i] for i in picked))
    return len(picked), shown, ga, pa, exact


def main(argv):
    args = script_args(argv, __doc__)
    if args is None:
        return 2
    logtk, per, parser, sample_dir = args
    list_dir = os.path.join(os.environ.get('LOGTK_LOGHUB2_FULL', ''), 'templates')
    if not os.path.isdir(list_dir):
        sys.stderr.write('%s: set LOGTK_LOGHUB2_FULL to the full-size folder\n' % argv[0])
        return 2
    paths = list_paths(list_dir, sample_dir, argv[4:])
    names = argv[4:] or sorted(paths)
    work = os.path.join(os.environ.get('TMPDIR', '/tmp'), 'logtk-unseen')
    os.makedirs(work, exist_ok=True)
    print('dataset\tparser\tunseen\tlines\tshown\texact\tGA\tPA')
    sums = []
    for name in names:
        made = paths.get(name) and make_log(sample_dir, paths[name], name, per,
                                            random.Random(1), work)
        if not made:
            continue
        path, labels, generated, nunseen, unseen_texts = made
        predicted = parsed_templates(logtk, name, parser, path)
        if len(predicted) != len(labels):
            sys.stderr.write('%s: %s: %d rows for %d lines\n' % (argv[0], name, len(predicted),
                                                                 len(labels)))
            return 1
        n, shown, ga, pa, exact = score(labels, predicted, generated, unseen_texts)
        print('%s\t%s\t%d\t%d\t%d\t%d\t%.4f\t%.4f' % (name, parser, nunseen, n, shown, exact, ga, pa))
        sums.append((nunseen, n, shown, exact, ga, pa))
        if os.environ.get('LOGTK_UNSEEN_KEEP'):
            with open(path + '.labels', 'w', encoding='utf-8') as f:
                for a, b, g in zip(labels, predicted, generated):
                    f.write('%d\t%s\t%s\n' % (g, a, b))
        else:
            os.remove(path)
    if sums:
        print('sum/mean\t%s\t%d\t%d\t%d\t%d\t%.4f\t%.4f' % (
            parser, sum(s[0] for s in sums), sum(s[1] for s in sums), sum(s[2] for s in sums),
            sum(s[3] for s in sums), sum(s[4] for s in sums) / len(sums),
            sum(s[5] for s in sums) / len(sums)))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
