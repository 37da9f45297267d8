#!/usr/bin/env python3
"""Does a parser keep its grouping when a log grows?  A check, not a test.

The held-out sets are full-size logs (10 to 8,000 times their 2k samples),
where a slot shows far more distinct values than in 2,000 lines.  This
script makes a larger log from each Loghub-2.0 2k sample whose ground truth
has parameter lists: the 2,000 lines themselves, plus MULT-1 new lines per
line, each a line of the same template with every "<*>" filled with a value
drawn from that slot's values in the sample (header taken from a line of
the template).  Constants stay constants; only the mix of values grows.
Each new line's template is known, so GA and PA are exact.  A parser that
generalises gives the same GA and PA at every size; one that merges
templates once it has seen enough values loses GA as MULT grows.

usage: tests/fuse_scale.py BUILD_DIR [MULT [PARSER [DATASET ...]]]
  BUILD_DIR  a build (its logtk is run); data from $LOGTK_LOGHUB2
  MULT       lines per sample line (default 10); PARSER default fuse
Prints one row per dataset: lines, GT templates, parser templates, GA, PA
(GA as Loghub counts it: a line is right when its group is exactly the
ground truth's group), and the speed of the parser and of drain on the grown
log (`logtk bench parse --input`, lines/s, the median of 3 alternated runs)
with their ratio (the mean row: the geometric mean of the ratios, and the
lowest): the held-out sets are where "at least as fast as Drain" is judged,
and a 2k sample is mostly learning.  Work files go to $TMPDIR/logtk-scale.
"""
import ast
import collections
import csv
import math
import os
import random
import statistics
import subprocess
import sys

csv.field_size_limit(1 << 30)


def norm(s):
    return ' '.join(s.split())


def fill(template, params):
    parts = template.split('<*>')
    if len(parts) - 1 != len(params):
        return None
    out = parts[0]
    for p, rest in zip(params, parts[1:]):
        out += p + rest
    return out


def grow(sample_dir, name, mult, seed, work):
    """Writes the grown log and its labels; returns (log path, labels)."""
    base = os.path.join(sample_dir, name, name + '_2k.log')
    with open(base, encoding='utf-8', errors='replace', newline='\n') as f:
        raw = f.read().split('\n')
    if raw and raw[-1] == '':
        raw.pop()
    with open(base + '_structured.csv', encoding='utf-8', errors='replace') as f:
        rows = list(csv.DictReader(f))
    if len(rows) != len(raw) or 'ParameterList' not in rows[0]:
        return None, None
    rng = random.Random(seed)
    by_template = collections.defaultdict(list)
    for row, line in zip(rows, raw):
        content, template = row['Content'], row['EventTemplate']
        try:
            params = ast.literal_eval(row['ParameterList'])
        except (ValueError, SyntaxError):
            params = None
        header = line[:len(line) - len(content)] if line.endswith(content) else None
        filled = fill(template, params) if params is not None else None
        usable = header is not None and filled is not None and norm(filled) == norm(content)
        by_template[template].append((header, params if usable else None, line))
    lines, labels = [], []
    for template, members in by_template.items():
        for _, _, line in members:
            lines.append(line)
            labels.append(template)
        usable = [m for m in members if m[1] is not None]
        for _ in range((mult - 1) * len(members)):
            if not usable:  # no parameter list matches: repeat a line
                lines.append(rng.choice(members)[2])
            else:
                header, params, _ = rng.choice(usable)
                values = [rng.choice(usable)[1][j] for j in range(len(params))]
                lines.append(header + fill(template, values).replace('\n', ' '))
            labels.append(template)
    order = list(range(len(lines)))
    rng.shuffle(order)
    path = os.path.join(work, '%s_x%d.log' % (name, mult))
    with open(path, 'w', encoding='utf-8', newline='\n') as f:
        for i in order:
            f.write(lines[i] + '\n')
    return path, [labels[i] for i in order]


def parsed_templates(logtk, name, parser, path):
    """The template of each line of path, as `logtk parse` with name's preset gives it."""
    out = subprocess.run([logtk, 'parse', '--dataset', name, '--parser', parser,
                          '--output', 'tsv', '-q', path],
                         stdout=subprocess.PIPE, check=True).stdout.decode('utf-8', 'replace')
    return [r['EventTemplate'] for r in
            csv.DictReader(out.split('\n')[:-1], delimiter='\t', quoting=csv.QUOTE_NONE)]


def lines_per_s(logtk, name, parser, path):
    """lines/s of one `logtk bench parse` run of parser on path with name's preset."""
    out = subprocess.run([logtk, 'bench', 'parse', '--input', path, '--dataset', name,
                          '--parser', parser, '--quiet'],
                         stdout=subprocess.PIPE, check=True).stdout.decode()
    return float(out.split('\n')[-2].split('\t')[5])


def speeds(logtk, name, parser, path, runs=3):
    """Median lines/s of parser and of drain on path, their runs alternated
    (so that a busy spell of the machine falls on both)."""
    ours, drain = [], []
    for _ in range(runs):
        ours.append(lines_per_s(logtk, name, parser, path))
        drain.append(lines_per_s(logtk, name, 'drain', path))
    return statistics.median(ours), statistics.median(drain)


def grouping_scores(labels, predicted):
    """(GA, FGA) of `predicted` against `labels`, as Loghub-2.0 defines them: a line
    counts for GA, and a group for FGA, when its group is exactly its label's group."""
    truth, ours = collections.Counter(labels), collections.Counter(predicted)
    both = collections.Counter(zip(labels, predicted))
    exact = [(a, b) for (a, b), c in both.items() if c == truth[a] == ours[b]]
    ga = sum(both[pair] for pair in exact) / len(labels)
    precision, recall = len(exact) / len(ours), len(exact) / len(truth)
    fga = 2 * precision * recall / (precision + recall) if exact else 0.0
    return ga, fga


def score(labels, predicted):
    ga = grouping_scores(labels, predicted)[0]
    pa = sum(1 for a, b in zip(labels, predicted) if norm(a) == norm(b)) / len(labels)
    return len(set(labels)), len(set(predicted)), ga, pa


def script_args(argv, usage):
    """BUILD_DIR [N [PARSER ...]] of these checks: (logtk, N, parser, 2k sample folder),
    or None after a message."""
    if len(argv) < 2:
        sys.stderr.write(usage)
        return None
    sample_dir = os.path.join(os.environ.get('LOGTK_LOGHUB2', ''), '2k_dataset')
    if not os.path.isdir(sample_dir):
        sys.stderr.write('%s: set LOGTK_LOGHUB2 to the Loghub-2.0 folder\n' % argv[0])
        return None
    return (os.path.join(argv[1], 'logtk'), int(argv[2]) if len(argv) > 2 else 10,
            argv[3] if len(argv) > 3 else 'fuse', sample_dir)


def main(argv):
    args = script_args(argv, __doc__)
    if args is None:
        return 2
    logtk, mult, parser, sample_dir = args
    names = argv[4:] or sorted(os.listdir(sample_dir))
    work = os.path.join(os.environ.get('TMPDIR', '/tmp'), 'logtk-scale')
    os.makedirs(work, exist_ok=True)
    print('dataset\tparser\tmult\tlines\tgt_templates\ttemplates\tGA\tPA'
          '\tlines_per_s\tdrain_lines_per_s\tspeed_ratio')
    sums = []
    for name in names:
        path, labels = grow(sample_dir, name, mult, 1, work)
        if path is None:
            continue
        predicted = parsed_templates(logtk, name, parser, path)
        if len(predicted) != len(labels):
            sys.stderr.write('%s: %s: %d rows for %d lines\n' % (argv[0], name, len(predicted), len(labels)))
            return 1
        nt, np_, ga, pa = score(labels, predicted)
        ours, drain = speeds(logtk, name, parser, path)
        print('%s\t%s\t%d\t%d\t%d\t%d\t%.4f\t%.4f\t%.0f\t%.0f\t%.3f' % (
            name, parser, mult, len(labels), nt, np_, ga, pa, ours, drain, ours / drain))
        sums.append((len(labels), ga, pa, ours / drain))
        os.remove(path)
    if sums:
        ratios = [s[3] for s in sums]
        print('mean\t%s\t%d\t%d\t-\t-\t%.4f\t%.4f\t-\t-\t%.3f (lowest %.3f)' % (
            parser, mult, sum(s[0] for s in sums), sum(s[1] for s in sums) / len(sums),
            sum(s[2] for s in sums) / len(sums),
            math.exp(sum(math.log(r) for r in ratios) / len(ratios)), min(ratios)))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
