# SPDX-License-Identifier: GPL-2.0-or-later
"""The producers command (scripts/aprof_trms/producers.py): top producers
per consumer, the consumers chosen by the selection options, and the
producer-to-consumer graph it draws (sources_graph.py)."""
import re

from aprof_trms import cli, producers, sources, sources_graph
from aprof_trms import profile as ap
from aprof_trms import report as ar
from source_reports import sources_example, without_sources


def test_summary_of_merged_reports(tmp_path):
    paths = []
    for i in (1, 2):   # two runs (pids) with the same numbers
        p = tmp_path / f"aprof-trms.out.{i}"
        p.write_text(re.sub(r"\npid\t[0-9]+", f"\npid\t{4000 + i}", sources_example()))
        paths.append(str(p))
    text_out = producers.summary_text(ap.load_profile(paths), consumers=10, top=5)
    assert text_out.splitlines()[0] == "consume_data: 404 induced reads by its own code"


def test_producers_command_and_graph(tmp_path, capsys):
    p = tmp_path / "aprof-trms.out.1"
    p.write_text(sources_example())
    graph = tmp_path / "graph.png"
    assert producers.main(["--graph", str(graph), str(p)]) == 0
    out = capsys.readouterr().out
    assert "99.01%" in out and "produce_data" in out and str(graph) in out
    assert graph.stat().st_size > 1000
    edges = sources.graph_edges(ar.load(str(p)), 10)
    assert edges[0] == (("thread", 1, "produce_data"), ("thread", 2, "consume_data"), 200)


def test_reads_labels_of_crowded_edges_never_overlap():
    """Twelve edges fanning out of one producer meet at their middles: the
    heaviest gets its label there, the others where they have room, and
    those without room none (label_spots, for the PNG and the HTML graph)."""
    producer = ("kernel", 0, "read")
    edges = [(producer, ("thread", 1, f"r{i}"), 100 - i) for i in range(12)]
    y = {consumer: i / 11 for i, (_, consumer, _) in enumerate(edges)}
    room = (0.3, 0.15)

    def point_at(p, c, t):  # straight lines from (0, 0.5) to (1, y)
        return t, 0.5 + (y[c] - 0.5) * t

    spots = sources_graph.label_spots(edges, point_at, room)
    assert spots[0] == point_at(*edges[0][:2], 0.5)
    placed = [s for s in spots if s]
    assert 1 < len(placed) < len(edges)
    for i, (x0, y0) in enumerate(placed):
        for x1, y1 in placed[i + 1:]:
            assert abs(x0 - x1) >= room[0] or abs(y0 - y1) >= room[1], (x0, y0, x1, y1)


def test_producers_command_refuses_reports_without_sources(tmp_path):
    p = tmp_path / "aprof-trms.out.1"
    p.write_text(without_sources(sources_example()))
    assert cli.run(producers.main, [str(p)]) == cli.EXIT_ERROR


def consumers_listed(out):
    return [line.split(":")[0] for line in out.splitlines() if not line.startswith(" ")]


def test_producers_command_chooses_consumers_as_the_other_commands_do(tmp_path, capsys):
    """-r and -e are select.py's: a name, a shell pattern, a part of a name,
    a regular expression; a name that selects nothing is an error."""
    p = tmp_path / "aprof-trms.out.1"
    p.write_text(sources_example())
    expected = {("-r", "produce_data"): ["produce_data"], ("-r", "consume*"): ["consume_data"],
                ("-r", "consume"): ["consume_data"], ("-e", "^produce"): ["produce_data"],
                ("--exclude-object", "consumer"): [],
                (): ["consume_data", "produce_data"]}
    for options, consumers in expected.items():
        assert producers.main([*options, str(p)]) == 0
        assert consumers_listed(capsys.readouterr().out) == consumers, options
    assert cli.run(producers.main, ["-r", "no_such_routine", str(p)]) == cli.EXIT_ERROR
    assert "no routine matches 'no_such_routine'" in capsys.readouterr().err


def test_graph_subtitle_wraps_between_words():
    command = " ".join(["/usr/bin/redis-server", "--port", "21080", "--save", "''",
                        "--appendonly", "no", "--dir", "/work/evalruns/final/redis/work"] * 3)
    text = sources_graph.subtitle(command, 60)
    lines = text.split("\n")
    assert 1 < len(lines) <= 3 and all(len(line) <= 60 for line in lines)
    words = command.split()
    assert all(w in words for line in lines for w in line.split() if w != "…")
    assert " ".join(" ".join(lines).split()[:-1]) == " ".join(words[:len(" ".join(lines).split()) - 1])
