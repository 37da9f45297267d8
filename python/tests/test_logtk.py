"""Tests of the logtk Python package (run by tests/python_unittest.sh in make check)."""
import array
import gzip
import os
import subprocess
import tempfile
import unittest

import logtk
import logtk.dask as ldask
from logtk import _lib
from logtk.drain3 import LogCluster, TemplateMiner

SRCDIR = os.environ.get("LOGTK_SRCDIR", os.path.join(os.path.dirname(__file__), "..", ".."))
SAMPLE = os.path.join(SRCDIR, "tests", "data", "sample.log")
SAMPLE_FORMAT = "<Date> <Time> <Level> <Component>: <Content>"
LOGTK = os.environ.get("LOGTK")  # the built program, for comparisons
HDFS_LINES = [
    "081109 203615 148 INFO dfs.DataNode$PacketResponder: PacketResponder 1 for block "
    "blk_38865049064139660 terminating",
    "081109 203807 222 INFO dfs.DataNode$PacketResponder: PacketResponder 0 for block "
    "blk_-6952295868487656571 terminating",
    "081109 204005 35 INFO dfs.FSNamesystem: BLOCK* NameSystem.addStoredBlock: blockMap "
    "updated: 10.251.73.220:50010 is added to blk_7128370237687728475 size 67108864",
    "081109 204015 308 INFO dfs.DataNode$PacketResponder: Received block "
    "blk_8229193803249955061 of size 67108864 from /10.251.107.19",
]


def sample_lines():
    with open(SAMPLE, "rb") as f:
        return f.read().split(b"\n")[:-1]


class ParserTest(unittest.TestCase):
    def test_add_learns_templates_and_parameters(self):
        p = logtk.Parser(dataset="HDFS")
        first = p.add(HDFS_LINES[0])
        self.assertEqual(first.template_id, 1)
        self.assertTrue(first.created)
        self.assertIn("<*>", first.template)
        second = p.add(HDFS_LINES[1])
        self.assertEqual(second.template_id, 1)
        self.assertFalse(second.created)
        # the parameters are the line's own text
        self.assertIn("blk_-6952295868487656571", second.params)
        self.assertEqual(second.key, p.template_key(1))
        self.assertEqual(len(second.key), 16)
        other = p.add(HDFS_LINES[2])
        self.assertEqual(other.template_id, 2)
        self.assertEqual([t.count for t in p.templates()], [2, 1])
        self.assertEqual(p.line_count, 3)

    def test_format_splits_lines(self):
        p = logtk.Parser(format=SAMPLE_FORMAT)
        self.assertEqual(p.fields(), ["Date", "Time", "Level", "Component"])
        ev = p.add("2024-03-11 08:00:02.425 INFO Auth: User bob logged out")
        self.assertNotIn("2024", ev.template)
        self.assertNotIn("Auth:", ev.template)

    def test_add_many_and_parse_file_equal_add_one_by_one(self):
        lines = sample_lines()
        one = logtk.Parser(format=SAMPLE_FORMAT)
        expected = array.array("I", [one.add(l).template_id for l in lines])
        many = logtk.Parser(format=SAMPLE_FORMAT)
        self.assertEqual(many.add_many(lines), expected)
        self.assertEqual(many.templates(), one.templates())
        f = logtk.Parser(format=SAMPLE_FORMAT)
        self.assertEqual(f.parse_file(SAMPLE), expected)
        self.assertEqual(f.save(), one.save())
        # str lines as well as bytes
        s = logtk.Parser(format=SAMPLE_FORMAT)
        self.assertEqual(s.add_many([l.decode() for l in lines]), expected)
        self.assertEqual(logtk.Parser().add_many(lines, ids=False), len(lines))

    def test_parse_file_reads_compressed_input(self):
        with tempfile.TemporaryDirectory() as d:
            gz = os.path.join(d, "sample.log.gz")
            with open(SAMPLE, "rb") as src, gzip.open(gz, "wb") as dst:
                dst.write(src.read())
            self.assertEqual(logtk.Parser().parse_file(gz), logtk.Parser().parse_file(SAMPLE))

    def test_add_many_refuses_a_line_holding_a_newline(self):
        with self.assertRaises(logtk.InvalidError):
            logtk.Parser().add_many(["one line", "two\nlines"])

    def test_errors_carry_the_library_message(self):
        with self.assertRaises(logtk.NotFoundError) as e:
            logtk.Parser(parser="nosuchparser")
        self.assertIn("nosuchparser", str(e.exception))
        with self.assertRaises(logtk.PatternError) as e:
            logtk.Parser(masks=["(unclosed"])
        self.assertIn("(unclosed", str(e.exception))
        self.assertEqual(e.exception.code, _lib.ERR_SYNTAX)
        with self.assertRaises(logtk.LogtkIOError) as e:
            logtk.Parser().parse_file("/nonexistent/app.log")
        self.assertIn("/nonexistent/app.log", str(e.exception))
        with self.assertRaises(logtk.StateError):
            logtk.Parser().load(b"LTKPSNAPgarbage")
        with self.assertRaises(logtk.PatternError) as e:
            logtk.Parser(format="<Date> no content")
        self.assertIn("Content", str(e.exception))

    def test_save_load_bytes_and_file(self):
        p = logtk.Parser(dataset="HDFS")
        p.add_many(HDFS_LINES)
        state = p.save()
        self.assertTrue(state.startswith(b"LTKPSNAP"))
        q = logtk.Parser.from_state(state)
        self.assertEqual(q.algorithm, p.algorithm)
        self.assertEqual(q.templates(), p.templates())
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "hdfs.state")
            p.save(path)
            r = logtk.Parser(dataset="HDFS")
            r.load(path)
            self.assertEqual(r.templates(), p.templates())
            # continues learning from the loaded state
            self.assertEqual(r.add(HDFS_LINES[0]).template_id, 1)

    def test_merge_is_order_independent(self):
        lines = sample_lines()
        shards = [lines[:100], lines[100:200], lines[200:]]
        states = []
        for shard in shards:
            p = logtk.Parser(format=SAMPLE_FORMAT)
            p.add_many(shard)
            states.append(p.save())
        self.assertTrue(ldask.check_merge_order(states))
        merged = logtk.Parser.merged(states)
        self.assertEqual(sum(t.count for t in merged.templates()), len(lines))
        a = logtk.Parser(format=SAMPLE_FORMAT)
        a.add_many(shards[0])
        b = logtk.Parser(format=SAMPLE_FORMAT)
        b.add_many(shards[1] + shards[2])
        a.merge(b)
        self.assertEqual(a.line_count, len(lines))

    @unittest.skipUnless(_lib.HAVE_MATCH, "liblogtk without logtk_parser_match")
    def test_match_does_not_learn(self):
        p = logtk.Parser(dataset="HDFS")
        self.assertIsNone(p.match(HDFS_LINES[0]))
        p.add(HDFS_LINES[0])
        before = p.save()
        ev = p.match(HDFS_LINES[1])
        self.assertEqual(ev.template_id, 1)
        self.assertFalse(ev.created)
        self.assertIn("blk_-6952295868487656571", ev.params)
        self.assertEqual(p.save(), before)
        self.assertEqual(p.match_many([l.encode() for l in HDFS_LINES[:2]]).tolist(), [1, 1])

    @unittest.skipUnless(LOGTK, "LOGTK (the built program) not set")
    def test_parse_file_ids_equal_logtk_parse(self):
        out = subprocess.run([LOGTK, "parse", "-q", "--format", SAMPLE_FORMAT, SAMPLE],
                             check=True, capture_output=True).stdout.split(b"\n")[1:-1]
        cli_ids = [int(row.split(b"\t")[6][1:]) for row in out]
        p = logtk.Parser(format=SAMPLE_FORMAT)
        ids = p.parse_file(SAMPLE).tolist()
        # `logtk parse` names templates of equal text as one (the lowest id) and numbers
        # them 1, 2, ... in id order, without the gaps the merged ids leave
        number = {}
        for t in p.templates():
            number.setdefault(t.text, len(number) + 1)
        texts = {t.id: t.text for t in p.templates()}
        self.assertEqual([number[texts[i]] for i in ids], cli_ids)
        self.assertLess(len(number), len(p))  # the sample has merged ids: gaps to close


class MetricsTest(unittest.TestCase):
    # true A={0,1,2} B={3,4} C={5} E={6,7} F={8}; parsed A={0,1} D={2,3,4} C e F
    TRUTH = ["A", "A", "A", "B", "B", "C", "E", "E", "F"]
    PARSED = ["A", "A", "D", "D", "D", "C", "e", "e", "F"]

    def test_evaluate_gives_the_metrics_of_bench_parse(self):
        m = logtk.evaluate(self.PARSED, self.TRUTH)
        self.assertEqual((m.messages, m.true_templates, m.parsed_templates), (9, 5, 5))
        self.assertAlmostEqual(m.ga, 4 / 9)     # C, E (another string) and F
        self.assertAlmostEqual(m.pa, 4 / 9)     # messages 0, 1, 5, 8
        self.assertAlmostEqual(m.fga, 3 / 5)    # 3 right groups of 5 and 5
        self.assertAlmostEqual(m.fta, 2 / 5)    # C and F written alike
        self.assertEqual(logtk.evaluate([b"x", "x"], ["x", b"x"]).pa, 1.0)

    def test_evaluate_errors_lists_the_lost_lines(self):
        errors = logtk.evaluate_errors(self.PARSED, self.TRUTH)
        self.assertEqual(errors, [
            logtk.GroupError("split", 2, 0, "A", "A"),
            logtk.GroupError("split+merged", 1, 2, "A", "D"),
            logtk.GroupError("merged", 2, 3, "B", "D"),
            logtk.GroupError("text", 2, 6, "E", "e"),
        ])
        grouping = sum(e.lines for e in errors if e.kind != "text")
        self.assertEqual(grouping, round((1 - logtk.evaluate(self.PARSED, self.TRUTH).ga) * 9))
        # bytes that are not UTF-8 come back as they were
        self.assertEqual(logtk.evaluate_errors([b"\xff"], [b"t"]),
                         [logtk.GroupError("text", 1, 0, "t", b"\xff".decode("utf-8", "surrogateescape"))])

    def test_bad_inputs_raise(self):
        with self.assertRaises(ValueError):
            logtk.evaluate(["a"], ["a", "b"])
        with self.assertRaises(ValueError):
            logtk.evaluate_errors([], [])
        with self.assertRaises(TypeError):
            logtk.evaluate([1], ["a"])


class Drain3Test(unittest.TestCase):
    def test_add_log_message_returns_drain3_dict(self):
        m = TemplateMiner()
        r = m.add_log_message("connected to 10.0.0.1")
        self.assertEqual(r, {"change_type": "cluster_created", "cluster_id": 1,
                             "cluster_size": 1, "template_mined": r["template_mined"],
                             "cluster_count": 1})
        self.assertEqual(r["template_mined"], "connected to 10.0.0.1")
        # Drain: a second line differing in one token makes it a variable
        r = m.add_log_message("connected to 10.0.0.2")
        self.assertEqual((r["change_type"], r["cluster_id"], r["cluster_size"],
                          r["cluster_count"]), ("cluster_template_changed", 1, 2, 1))
        self.assertEqual(r["template_mined"], "connected to <*>")
        r = m.add_log_message("connected to 10.0.0.3")
        self.assertEqual((r["change_type"], r["cluster_size"]), ("none", 3))
        r = m.add_log_message("user davidoh logged in")
        self.assertEqual((r["change_type"], r["cluster_id"], r["cluster_count"]),
                         ("cluster_created", 2, 2))
        r = m.add_log_message("user eranr logged in")
        self.assertEqual((r["change_type"], r["cluster_id"], r["cluster_size"],
                          r["template_mined"]),
                         ("cluster_template_changed", 2, 2, "user <*> logged in"))
        clusters = m.drain.clusters
        self.assertIsInstance(clusters[0], LogCluster)
        self.assertEqual(clusters[0].size, 3)
        self.assertTrue(str(clusters[0]).startswith("ID=1     : size=3         : connected"))
        params = m.extract_parameters("connected to <*>", "connected to 10.0.0.9")
        self.assertEqual([p.value for p in params], ["10.0.0.9"])
        self.assertIsNone(m.extract_parameters("connected to <*>", "something else"))

    @unittest.skipUnless(_lib.HAVE_MATCH, "liblogtk without logtk_parser_match")
    def test_match_returns_a_cluster_or_none(self):
        m = TemplateMiner()
        m.add_log_message("connected to 10.0.0.1")
        m.add_log_message("connected to 10.0.0.2")
        c = m.match("connected to 10.0.0.3")
        self.assertIsInstance(c, LogCluster)
        self.assertEqual((c.cluster_id, c.size, c.get_template()), (1, 2, "connected to <*>"))
        self.assertIsNone(m.match("nothing like it was seen"))

    def test_persistence_handler_keeps_the_state(self):
        class Memory:
            state = None

            def save_state(self, state):
                self.state = state

            def load_state(self):
                return self.state
        store = Memory()
        m = TemplateMiner(store)
        m.add_log_message("connected to 10.0.0.1")
        self.assertIsNotNone(store.state)
        again = TemplateMiner(store)
        r = again.add_log_message("connected to 10.0.0.1")
        self.assertEqual((r["change_type"], r["cluster_id"], r["cluster_size"]), ("none", 1, 2))


class ArchiveTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        with open(SAMPLE, "rb") as f:
            self.data = f.read()
        self.path = os.path.join(self.dir.name, "sample.ltk")

    def tearDown(self):
        self.dir.cleanup()

    def test_roundtrip_grep_cat(self):
        a = logtk.Archive.compress(SAMPLE, self.path, format=SAMPLE_FORMAT, block_lines=64)
        self.assertEqual(a.decompress(), self.data)
        lines = self.data.splitlines(keepends=True)
        self.assertEqual(a.totals()[0], len(lines))
        self.assertEqual(a.cat(100, 130), b"".join(lines[99:130]))
        self.assertEqual(a.cat(300), b"".join(lines[299:]))
        want = [l for l in lines if b"logged out" in l]
        self.assertTrue(want)
        self.assertEqual(a.grep("logged out", fixed=True), want)
        self.assertEqual(a.grep(r"User \w+ logged out"), want)
        self.assertEqual(len(a.grep("logged out", fixed=True, invert=True)),
                         len(lines) - len(want))
        out = os.path.join(self.dir.name, "back.log")
        a.decompress(out)
        with open(out, "rb") as f:
            self.assertEqual(f.read(), self.data)

    def test_damage_and_bad_patterns_raise(self):
        logtk.Archive.compress(self.data, self.path)
        with open(self.path, "r+b") as f:
            f.seek(200)
            f.write(b"\xff" * 64)
        with self.assertRaises(logtk.ArchiveError) as e:
            logtk.Archive(self.path).decompress()
        self.assertIn("sample.ltk", str(e.exception))
        with self.assertRaises(logtk.PatternError):
            logtk.Archive(self.path).grep("(unclosed")
        with self.assertRaises(logtk.LogtkIOError):
            logtk.Archive(os.path.join(self.dir.name, "missing.ltk")).decompress()


class DetectorTest(unittest.TestCase):
    def sessions(self):
        normal = [["E1", "E2", "E3"]] * 40
        odd = [["E1", "E9", "E9", "E9"]] * 4
        return normal + odd, [0] * 40 + [1] * 4

    def test_train_predict_eval(self):
        seqs, labels = self.sessions()
        d = logtk.Detector("lr")
        d.train(seqs, labels)
        scores, verdicts = d.predict([["E1", "E2", "E3"], ["E1", "E9", "E9", "E9"]])
        self.assertEqual(verdicts, [0, 1])
        self.assertGreater(scores[1], scores[0])
        m = logtk.Detector("lr").eval(seqs, seqs, labels, labels)
        self.assertEqual((m["tp"], m["fp"]), (4, 0))
        self.assertAlmostEqual(m["f1"], 1.0)
        again = logtk.Detector().load(d.save())
        self.assertEqual(again.predict([["E1", "E9", "E9", "E9"]])[1], [1])

    def test_errors(self):
        with self.assertRaises(logtk.NotFoundError):
            logtk.Detector("nosuchmodel")
        with self.assertRaises(logtk.LogtkError) as e:
            logtk.Detector("lr").train([["E1"], ["E2"]])  # supervised without labels
        self.assertTrue(str(e.exception))


class DaskLocalTest(unittest.TestCase):
    """logtk.dask with client=None: the same steps in this process."""

    def test_one_shard_equals_logtk_parse(self):
        if not LOGTK:
            self.skipTest("LOGTK not set")
        with tempfile.TemporaryDirectory() as d:
            rows, tmpl = os.path.join(d, "rows.tsv"), os.path.join(d, "t.tsv")
            ldask.parse(None, [SAMPLE], out=rows, templates=tmpl, format=SAMPLE_FORMAT)
            subprocess.run([LOGTK, "parse", "-q", "--format", SAMPLE_FORMAT, "-o",
                            os.path.join(d, "cli.tsv"), "--templates",
                            os.path.join(d, "cli-t.tsv"), SAMPLE], check=True)
            for ours, theirs in ((rows, "cli.tsv"), (tmpl, "cli-t.tsv")):
                with open(ours, "rb") as a, open(os.path.join(d, theirs), "rb") as b:
                    self.assertEqual(a.read(), b.read())

    @unittest.skipUnless(_lib.HAVE_MATCH_READER, "liblogtk without match")
    def test_shards_give_the_same_output_in_any_grouping(self):
        with tempfile.TemporaryDirectory() as d:
            shards = ldask.plan_shards([SAMPLE], shard_bytes=4096)
            self.assertGreater(len(shards), 3)
            with open(SAMPLE, "rb") as f:
                self.assertEqual(b"".join(_read(s) for s in shards), f.read())
            r1 = ldask.parse(None, [SAMPLE], out=os.path.join(d, "a.tsv"),
                             format=SAMPLE_FORMAT, shards=shards, return_ids=True)
            r2 = ldask.parse(None, [SAMPLE], out=os.path.join(d, "b.tsv"),
                             format=SAMPLE_FORMAT, shards=shards)
            self.assertEqual(r1.templates, r2.templates)
            self.assertEqual(len(r1.ids), 301)
            self.assertEqual(sum(t[2] for t in r1.templates), 301)
            # ids are numbered in first-seen order
            self.assertEqual(list(dict.fromkeys(r1.ids)), list(range(1, len(r1.templates) + 1)))

    def test_numpy_and_pure_python_give_the_same_result(self):
        # numpy (optional) only speeds up counting and relabelling the per-line ids
        shards = ldask.plan_shards([SAMPLE], shard_bytes=4096)
        with tempfile.TemporaryDirectory() as d:
            results = []
            saved = ldask._np
            try:
                for np in (saved, None):
                    ldask._np = np
                    r = ldask.parse(None, [SAMPLE], out=os.path.join(d, "rows.tsv"),
                                    format=SAMPLE_FORMAT, shards=shards, return_ids=True)
                    with open(os.path.join(d, "rows.tsv"), "rb") as f:
                        results.append((r.templates, r.ids.tolist(), f.read()))
            finally:
                ldask._np = saved
            self.assertEqual(results[0], results[1])

    @unittest.skipUnless(_lib.HAVE_REMATCH_READER, "liblogtk without rematch")
    def test_rematching_with_the_learn_ids_equals_matching_every_line(self):
        # the classify step rematches each shard from its learn ids; matching every line
        # against the merged templates must give the same rows, ids and templates
        shards = ldask.plan_shards([SAMPLE], shard_bytes=4096)
        with tempfile.TemporaryDirectory() as d:
            results = []
            try:
                for rematch in (True, False):
                    ldask._REMATCH = rematch
                    r = ldask.parse(None, [SAMPLE], out=os.path.join(d, "rows.tsv"),
                                    format=SAMPLE_FORMAT, shards=shards, return_ids=True)
                    with open(os.path.join(d, "rows.tsv"), "rb") as f:
                        results.append((r.templates, r.ids.tolist(), f.read()))
            finally:
                ldask._REMATCH = True
            self.assertEqual(results[0], results[1])
            self.assertEqual(len(results[0][1]), 301)

    def test_plan_shards_are_nearly_equal(self):
        size = os.path.getsize(SAMPLE)
        shards = ldask.plan_shards([SAMPLE], shard_bytes=size // 4)
        self.assertEqual(len(shards), 5)  # ceil(size / shard_bytes)
        sizes = [end - start for _, start, end in shards]
        self.assertLess(max(sizes) - min(sizes), 400)  # no small last shard (a line or two)

    def test_compress_and_grep_shards(self):
        with tempfile.TemporaryDirectory() as d:
            manifest = ldask.compress(None, [SAMPLE], os.path.join(d, "arch"), shard_bytes=4096)
            self.assertGreater(len(manifest["archives"]), 3)
            with open(SAMPLE, "rb") as f:
                data = f.read()
            back = b"".join(logtk.Archive(os.path.join(d, "arch", e["archive"])).decompress()
                            for e in manifest["archives"])
            self.assertEqual(back, data)
            want = [l for l in data.splitlines(keepends=True) if b"ERROR" in l]
            self.assertEqual(ldask.grep(None, os.path.join(d, "arch"), "ERROR", fixed=True), want)


def _read(shard):
    with open(shard[0], "rb") as f:
        f.seek(shard[1])
        return f.read(shard[2] - shard[1])


if __name__ == "__main__":
    unittest.main()
