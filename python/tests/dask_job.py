"""The Dask job of tests/python_dask.sh: runs on a running cluster and writes its
outputs to OUT so that runs with 1, 2 and 4 workers can be compared byte for byte.

usage: dask_job.py SCHEDULER WORKERS OUT SCALEUP_FILE [--check-cli LOGTK]

For each Loghub-2k log (when LOGTK_LOGHUB is set), in 4 shards: rows and template list
(with --check-cli: byte-identical to `logtk parse` on the whole log, or the job fails).
For the scale-up file, in shards of SHARD_MB MiB: the template list and every line's
template id (ids.bin), the per-shard archives' grep output, and timings (timings.json,
not compared).  With --check-cli, also compares with `logtk parse` on the whole input.
"""
import json
import os
import subprocess
import sys
import time

from distributed import Client

import logtk
import logtk.dask as ldask

scheduler, nworkers, out, scaleup = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
logtk_cli = sys.argv[sys.argv.index("--check-cli") + 1] if "--check-cli" in sys.argv else None
shard_mb = float(os.environ.get("SHARD_MB", "16"))
# the scale-up's preset (or format) and a string to grep for
scale_cfg = {"dataset": os.environ["SCALE_DATASET"]} if os.environ.get("SCALE_DATASET") \
    else {"format": os.environ.get("SCALE_FORMAT")}
needle = os.environ.get("GREP_FOR", "blk_-1030832046197982436")
os.makedirs(out, exist_ok=True)
client = Client(scheduler, timeout=60)
client.wait_for_workers(nworkers, timeout=120)
assert len(client.scheduler_info()["workers"]) == nworkers, client.scheduler_info()["workers"]
failures = []
timings = {"workers": nworkers}

root = os.environ.get("LOGTK_LOGHUB")
datasets = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d))) \
    if root else []
total_lines = total_differ = 0
for ds in datasets:
    log = os.path.join(root, ds, ds + "_2k.log")
    rows = os.path.join(out, ds + ".rows.tsv")
    r = ldask.parse(client, [log], out=rows, templates=os.path.join(out, ds + ".templates.tsv"),
                    dataset=ds, shard_bytes=os.path.getsize(log) // 4 + 1)
    assert len(r.shards) == 4 and r.lines == 2000, (ds, len(r.shards), r.lines)
    if logtk_cli:
        # byte for byte: the rows (EventIds included) and the template list
        cli_rows = os.path.join(out, ds + ".cli.tsv")
        cli_list = os.path.join(out, ds + ".cli-templates.tsv")
        subprocess.run([logtk_cli, "parse", "-q", "--dataset", ds, "-o", cli_rows,
                        "--templates", cli_list, log], check=True)
        lines, differ, renaming = ldask.compare_rows(rows, cli_rows)
        same = {}
        for name, ours, theirs in (("rows", rows, cli_rows),
                                   ("template list", os.path.join(out, ds + ".templates.tsv"),
                                    cli_list)):
            with open(ours, "rb") as a, open(theirs, "rb") as b:
                same[name] = a.read() == b.read()
            os.unlink(theirs)
        total_lines += lines
        total_differ += differ
        print("%-12s 4 shards: %d lines, %d whose template or parameters differ from "
              "`logtk parse`; EventIds the same up to renaming: %s; rows %s, template list %s"
              % (ds, lines, differ, renaming,
                 "identical" if same["rows"] else "DIFFER",
                 "identical" if same["template list"] else "DIFFERS"))
        if not all(same.values()):
            failures.append("%s in 4 shards: not byte-identical to `logtk parse` (%s)"
                            % (ds, ", ".join(k for k, v in same.items() if not v)))
if logtk_cli and datasets:
    print("Loghub-2k, 4 shards each: %d of %d lines as `logtk parse` gives them"
          % (total_lines - total_differ, total_lines))

# the scale-up: parse (ids and templates), compress into per-shard archives, grep
shard_bytes = int(shard_mb * (1 << 20))
t = time.perf_counter()
r = ldask.parse(client, [scaleup], **scale_cfg, shard_bytes=shard_bytes, return_ids=True,
                templates=os.path.join(out, "scaleup.templates.tsv"))
timings["parse_wall"] = time.perf_counter() - t
timings.update({"parse_" + k: v for k, v in r.timings.items()})
timings["lines"] = r.lines
timings["shards"] = len(r.shards)
with open(os.path.join(out, "scaleup.ids.bin"), "wb") as f:
    r.ids.tofile(f)
t = time.perf_counter()
ldask.compress(client, [scaleup], os.path.join(out, "archives"), shard_bytes=shard_bytes,
               **scale_cfg)
timings["compress_wall"] = time.perf_counter() - t
t = time.perf_counter()
found = ldask.grep(client, os.path.join(out, "archives"), needle, fixed=True)
timings["grep_wall"] = time.perf_counter() - t
with open(os.path.join(out, "scaleup.grep.txt"), "wb") as f:
    f.writelines(found)
with open(scaleup, "rb") as f:
    want = [l for l in f if needle.encode() in l]
if found != want or not want:
    failures.append("grep over the archives: %d lines, grep on the input: %d"
                    % (len(found), len(want)))
os.rename(os.path.join(out, "archives", "manifest.json"), os.path.join(out, "manifest.json"))

if logtk_cli:
    # `logtk parse` on the whole scale-up: its EventId column and template list
    cli_t = os.path.join(out, "scaleup.cli-templates.tsv")
    preset = ["--dataset", scale_cfg["dataset"]] if "dataset" in scale_cfg else \
        ["--format", scale_cfg["format"]] if scale_cfg.get("format") else []
    proc = subprocess.Popen([logtk_cli, "parse", "-q"] + preset + ["--templates", cli_t,
                                                                  scaleup],
                            stdout=subprocess.PIPE)
    proc.stdout.readline()
    cli_ids = [int(row.rsplit(b"\t", 3)[1][1:]) for row in proc.stdout]  # EventId
    if proc.wait():
        failures.append("logtk parse failed on the scale-up")
    # the same template text for every line, the same templates with the same counts;
    # EventIds equal too unless the sequential run aliased templates (its ids then
    # have gaps that a sharded run cannot know)
    with open(cli_t, "rb") as f:
        f.readline()
        cli_list = [row.rstrip(b"\n").split(b"\t") for row in f]
    cli_text = {int(x[0][1:]): x[1] for x in cli_list}
    our_text = {tid: ldask._tsv_escape(text).encode("utf-8", "surrogateescape")
                for tid, text, _, _ in r.templates}
    bad = sum(cli_text[a] != our_text[b] for a, b in zip(cli_ids, r.ids))
    if len(cli_ids) != len(r.ids) or bad:
        failures.append("scale-up: %d of %d lines have another template than with "
                        "`logtk parse`" % (bad, len(cli_ids)))
    if sorted((x[1], x[2]) for x in cli_list) != \
            sorted((our_text[t[0]], str(t[2]).encode()) for t in r.templates):
        failures.append("scale-up: the templates or their counts differ from `logtk parse`")
    same_ids = cli_ids == r.ids.tolist()
    with open(cli_t, "rb") as a, open(os.path.join(out, "scaleup.templates.tsv"), "rb") as b:
        same_list = a.read() == b.read()
    os.unlink(cli_t)
    print("scale-up: %d lines in %d shards: every line's template and parameters %s "
          "`logtk parse`'s; EventIds %s, template list file %s"
          % (r.lines, len(r.shards), "differ from" if failures else "as",
             "identical" if same_ids else "DIFFER", "identical" if same_list else "DIFFERS"))
    if not (same_ids and same_list):
        failures.append("scale-up: EventIds or the template list differ from `logtk parse`")

with open(os.path.join(out, "..", "timings-%d.json" % nworkers), "w") as f:
    json.dump(timings, f, indent=1)
print("%d workers: %d lines parsed in %.2f s (%.0f lines/s); compress %.2f s, grep %.2f s"
      % (nworkers, r.lines, timings["parse_wall"], r.lines / timings["parse_wall"],
         timings["compress_wall"], timings["grep_wall"]))
client.close()
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
