"""``workbench bulk-load --template-out DIR``: a Dataflow Flex Template, checked offline.

metadata.json must list every parameter of the bulk-load parser (read from the parser, so a
new option without a template parameter fails here), each with a regex that takes a valid
value and refuses a bad one (examples written here, by hand); the Dockerfile and its
requirements pin every version; the launcher turns the template's parameters back into the
command line the parser reads as the same values.
"""

from __future__ import annotations

import json
import re
from importlib import metadata
from pathlib import Path

import grpc
import pytest

from workbench.beam import command
from workbench.beam.template import LAUNCH_MARK, command_argv
from workbench.bigtable import connection as conn_mod
from workbench.bigtable.emulator import ENV_HOST
from workbench.cli import main

# parameter → (a valid value, a bad one): one pair per parameter of the parser
EXAMPLES = {
    "source": ("gs://bucket/exports/part-*.parquet", "/home/me/part-0.parquet"),
    "entity": ("metric,host", "metric,,host"),
    "time": ("time", "time,date"),
    "measures": ("kwh,voltage", ""),
    "attributes": ("site", ",site"),
    "naive_tz": ("Europe/Berlin", "Berlin Time"),
    "name": ("energy_meters", "my data"),
    "design": ("entity_first", "Entity-First"),
    "param": ("bucket=day,salt=8", "bucket"),
    "format": ("parquet", "json"),
    "duplicates": ("last", "newest"),
    "max_bad_records": ("100", "-1"),
    "dead_letter": ("gs://bucket/dead/meters", "my dead letters"),
    "sep": (";", ";;"),
    "project": ("my-project-123", "My_Project"),
    "instance": ("serving-1", "srv"),
    "table": ("meters", "meters/2024"),
    "confirm": ("meters", "-meters"),
    "allow_production": ("true", "yes"),
    "batch_events": ("200000", "0"),
    "sample_events": ("100000", "-5"),
    "pre_split": ("false", "off"),
    "events_per_s": ("2500.5", "0"),
    "nodes": ("3", "3.5"),
    "app_profile": ("bulk-writer", "bulk writer"),
    "max_mutations_per_s": ("20000", "0.0"),
}


def _parser_params() -> dict[str, object]:
    """Every parameter of the bulk-load parser but help and --template-out (which writes the
    template instead of loading), from the parser itself."""
    return {a.dest: a for a in command.parser()._actions if a.dest not in {"help", "template_out"}}


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("tpl") / "flex"
    assert main(["bulk-load", "--template-out", str(out)]) == 0
    return out


def test_metadata_lists_every_parameter_of_the_parser(template):
    meta = json.loads((template / "metadata.json").read_text())
    names = [p["name"] for p in meta["parameters"]]
    params = _parser_params()
    assert sorted(names) == sorted(params) and len(names) == len(set(names))
    assert set(EXAMPLES) == set(params), "a parameter without a valid and a bad example here"
    for p in meta["parameters"]:
        assert p["label"] and p["helpText"], p
        assert p["isOptional"] == (not params[p["name"]].required), p  # type: ignore[attr-defined]
    required = {p["name"] for p in meta["parameters"] if not p["isOptional"]}
    assert required == {"source", "time", "measures", "design", "project", "instance", "table"}


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_each_regex_takes_a_valid_value_and_refuses_a_bad_one(template, name):
    meta = json.loads((template / "metadata.json").read_text())
    (param,) = [p for p in meta["parameters"] if p["name"] == name]
    good, bad = EXAMPLES[name]
    assert param["regexes"], name
    assert all(re.search(rx, good) for rx in param["regexes"]), (name, good)
    assert not all(re.search(rx, bad) for rx in param["regexes"]), (name, bad)


def test_the_dockerfile_and_requirements_pin_every_version(template):
    docker = (template / "Dockerfile").read_text().splitlines()
    beam = metadata.version("apache-beam")
    version = metadata.version("bigtable-ts-workbench")
    (base,) = [line for line in docker if line.startswith("FROM ")]
    # Google's Flex Template launcher image for Python, by a tag that is not "latest"
    m = re.fullmatch(
        r"FROM gcr\.io/dataflow-templates-base/python3\d*-template-launcher-base:(\S+)", base
    )
    assert m and m.group(1) != "latest", base
    assert f"COPY --from=apache/beam_python3.11_sdk:{beam} /opt/apache/beam /opt/apache/beam" in (
        docker
    )
    assert 'ENV FLEX_TEMPLATE_PYTHON_PY_FILE="/template/main.py"' in docker
    wheel = f"bigtable_ts_workbench-{version}-py3-none-any.whl"
    assert any(line.startswith(f"COPY {wheel} ") for line in docker)
    reqs = (template / "requirements.txt").read_text().splitlines()
    assert reqs[0] == f"bigtable-ts-workbench[dataflow] @ file:///template/{wheel}"
    assert f"apache-beam[gcp]=={beam}" in reqs
    assert all(re.fullmatch(r"[A-Za-z0-9_.\-\[\]]+==[0-9][^=\s]*", r) for r in reqs[1:]), reqs
    # every runtime dependency of the package, at the version installed here
    runtime = ["google-cloud-bigtable", "grpcio", "protobuf", "pandas", "numpy", "pyarrow"]
    for dep in runtime:
        assert f"{dep}=={metadata.version(dep)}" in reqs, dep
    assert LAUNCH_MARK in (template / "main.py").read_text()


def test_the_launcher_reads_the_parameters_as_the_command_line_does():
    p = command.parser()
    launch = [
        "--source=gs://b/part-*.parquet",
        "--entity=meter_id",
        "--time=time",
        "--measures=kwh,voltage",
        "--design=bucket_new_cells",
        "--param=bucket=day,salt=8",
        "--project=my-project",
        "--instance=serving-1",
        "--table=meters",
        "--allow_production=true",
        "--pre_split=false",
        "--batch_events=5000",
        "--max_mutations_per_s=20000",
        "--region=europe-west1",  # Dataflow's own: passed on as it is
    ]
    argv = command_argv(p, launch)
    args, rest = p.parse_known_args(argv)
    direct, _ = p.parse_known_args(
        [
            "gs://b/part-*.parquet",
            "--entity=meter_id",
            "--time=time",
            "--measures=kwh,voltage",
            "--design=bucket_new_cells",
            "--param=bucket=day",
            "--param=salt=8",
            "--project=my-project",
            "--instance=serving-1",
            "--table=meters",
            "--allow-production",
            "--no-pre-split",
            "--batch-events=5000",
            "--max-mutations-per-s=20000",
        ]
    )
    assert vars(args) == vars(direct)
    assert args.param == [("bucket", "day"), ("salt", 8)] and args.pre_split is False
    assert rest == ["--region=europe-west1"]
    # a switch set to false is left off (its default), never passed as a value
    off, _ = p.parse_known_args(command_argv(p, [*launch[:9], "--allow_production=false"]))
    assert off.allow_production is None


def test_a_launch_without_the_opt_in_is_refused_before_any_request(monkeypatch, capsys):
    # the launcher's path end to end, offline: the parameters parse, then the production
    # opt-in refuses Cloud Bigtable before any channel is opened
    monkeypatch.delenv(conn_mod.ENV_ALLOW_PRODUCTION, raising=False)
    monkeypatch.delenv(ENV_HOST, raising=False)
    opened = []
    monkeypatch.setattr(grpc, "secure_channel", lambda *a, **k: opened.append(a))
    monkeypatch.setattr(grpc, "insecure_channel", lambda *a, **k: opened.append(a))
    rc = main(
        [
            "bulk-load",
            LAUNCH_MARK,
            "--source=gs://b/part-*.parquet",
            "--time=time",
            "--measures=kwh",
            "--design=entity_first",
            "--project=my-project",
            "--instance=serving-1",
            "--table=meters",
        ]
    )
    assert rc == 2 and "WORKBENCH_ALLOW_PRODUCTION=1" in capsys.readouterr().err
    assert opened == []
    assert main(["bulk-load", LAUNCH_MARK, "--template-out=/tmp/x"]) == 2
