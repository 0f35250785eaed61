"""``workbench bulk-load --template-out DIR``: the command as a Dataflow Flex Template.

A Flex Template is a container image that launches the pipeline, plus a spec built from
``metadata.json`` (Google's "Build and run a Flex Template" / "Configure Flex Templates"):

* ``metadata.json``: every parameter of ``workbench bulk-load`` (read from its parser; only
  ``--template-out`` is left out: it writes a template instead of loading) with its label,
  help, whether it is optional and one regex (``REGEXES``) Dataflow checks it against before a
  launch. A parameter is named by its argparse destination (``batch_events``); a list
  parameter is one comma-separated value (``param``: ``bucket=day,salt=8``); a switch is
  ``true``/``false``.
* ``main.py``: the launcher (``FLEX_TEMPLATE_PYTHON_PY_FILE``): the parameters back into the
  command line (:func:`command_argv`), then ``workbench bulk-load`` without waiting for the
  job (Dataflow's rule for a launcher: it must exit once the job is submitted).
* ``Dockerfile``: ``FROM`` Google's Flex Template launcher image for Python, pinned by tag,
  with the Beam SDK's worker boot of the installed Beam version (the same image can be the
  workers' ``sdk_container_image``), installing ``requirements.txt``: the package's wheel at
  its version with ``[dataflow]``, ``apache-beam[gcp]`` and every runtime dependency pinned to
  the version installed here.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

from ..errors import WorkbenchError

PACKAGE = "bigtable-ts-workbench"
# Google's Flex Template launcher base image for Python, pinned (the tag Google's own sample,
# python-docs-samples dataflow/flex-templates/pipeline_with_dependencies, copies it from)
LAUNCHER_IMAGE = "gcr.io/dataflow-templates-base/python311-template-launcher-base:20230622_RC00"
SDK_IMAGE = "apache/beam_python3.11_sdk"  # tagged with the installed Beam version
LAUNCH_MARK = "--flex-template-launch"  # main.py's mark: launch, do not wait (not a parameter)
LEFT_OUT = {"template_out", "help"}  # parser destinations that are no template parameter

_LIST = r"^[^,\n\r]+(,[^,\n\r]+)*$"  # comma-separated names
_COUNT = r"^[1-9][0-9]*$"
_RATE = r"^(?=.*[1-9])[0-9]+(\.[0-9]+)?$"  # a number above 0
_SWITCH = r"^(true|false)$"
_TABLE = r"^[_a-zA-Z0-9][-_.a-zA-Z0-9]{0,49}$"  # Bigtable table IDs (admin.check_table_id)
# One regex per parameter (Java and Python read them alike): tests/beam/test_template.py holds
# each to a valid and a bad example, and fails on a parameter with none.
REGEXES = {
    "source": r"^gs://[^\n\r]+$",  # a Dataflow job reads Cloud Storage, not the launcher's disk
    "entity": _LIST,
    "time": r"^[^,\n\r]+$",
    "measures": _LIST,
    "attributes": _LIST,
    "naive_tz": r"^[A-Za-z][-A-Za-z0-9_+]*(/[-A-Za-z0-9_+]+)*$",  # UTC, Europe/Berlin
    "name": r"^[A-Za-z0-9_][-A-Za-z0-9_.]*$",
    "design": r"^[a-z][a-z0-9_]*$",
    "param": r"^[A-Za-z_][A-Za-z0-9_]*=[^,=\n\r]+(,[A-Za-z_][A-Za-z0-9_]*=[^,=\n\r]+)*$",
    "format": r"^(csv|parquet)$",
    "duplicates": r"^(error|first|last)$",
    "sep": r"^[^\n\r]$",  # one character
    "project": r"^[a-z][-a-z0-9]{4,28}[a-z0-9]$",  # Google Cloud project IDs: 6-30
    "instance": r"^[a-z][-a-z0-9]{4,31}[a-z0-9]$",  # Bigtable instance IDs: 6-33
    "table": _TABLE,
    "confirm": _TABLE,
    "allow_production": _SWITCH,
    "batch_events": _COUNT,
    "sample_events": _COUNT,
    "pre_split": _SWITCH,
    "events_per_s": _RATE,
    "nodes": _COUNT,
    "max_bad_records": r"^[0-9]+$",
    "dead_letter": r"^(gs://)?[^\s]+$",
    "app_profile": r"^[_a-zA-Z0-9][-_.a-zA-Z0-9]{0,49}$",
    "max_mutations_per_s": _RATE,
}


def parameters(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """The parser's actions that are template parameters."""
    return [a for a in parser._actions if a.dest not in LEFT_OUT]


def _switch(action: argparse.Action) -> bool:
    return action.nargs == 0  # store_true, BooleanOptionalAction: no value on the command line


def metadata_of(parser: argparse.ArgumentParser) -> dict:
    """metadata.json: every parameter with its label, help, optional flag and regex."""
    params = []
    for a in parameters(parser):
        if a.dest not in REGEXES:
            raise WorkbenchError(
                f"bulk-load's parameter {a.dest!r} has no regex in workbench/beam/template.py "
                "REGEXES: add one (and its examples in tests/beam/test_template.py)."
            )
        flag = a.option_strings[-1] if a.option_strings else a.dest
        text = (a.help or flag).replace("%(default)s", str(a.default))
        if _switch(a):
            text += " (true or false)"
        elif a.dest == "param":
            text += " (NAME=VALUE pairs, comma-separated)"
        params.append(
            {
                "name": a.dest,
                "label": flag.lstrip("-").replace("-", " ").capitalize(),
                "helpText": text,
                "isOptional": not a.required,
                "regexes": [REGEXES[a.dest]],
            }
        )
    return {
        "name": "workbench bulk-load",
        "description": "A time-series design's cells for CSV or Parquet files on Cloud Storage, "
        "written to Cloud Bigtable (bigtable-ts-workbench).",
        "parameters": params,
    }


def command_argv(parser: argparse.ArgumentParser, argv: Sequence[str]) -> list[str]:
    """A launch's ``--name=value`` parameters as ``workbench bulk-load``'s command line:
    ``source`` positional, switches as flags, ``param`` repeated; anything else (Beam's and
    Dataflow's own options) unchanged."""
    by_dest = {a.dest: a for a in parameters(parser)}
    out: list[str] = []
    for token in argv:
        m = re.fullmatch(r"--([A-Za-z_][A-Za-z0-9_]*)=(.*)", token, re.DOTALL)
        a = by_dest.get(m.group(1)) if m else None
        if m is None or a is None:
            out.append(token)
            continue
        value = m.group(2)
        if not a.option_strings:  # the positional source
            out.append(value)
        elif _switch(a):
            on = value.lower() == "true"
            flags = [s for s in a.option_strings if s.startswith("--no-") != on]
            if flags and (on or len(a.option_strings) > 1):
                out.append(flags[0])
        elif a.dest == "param":
            out += [f"--param={pair}" for pair in value.split(",") if pair]
        else:
            out.append(f"{a.option_strings[-1]}={value}")
    return out


def _pins() -> list[str]:
    """The package's runtime dependencies at the versions installed here, and Beam's GCP
    extra at the installed Beam's version."""
    from packaging.requirements import Requirement

    out = []
    for line in metadata.requires(PACKAGE) or []:
        req = Requirement(line)
        if req.marker is not None:  # an extra's (or a Python version's) dependency
            continue
        out.append(f"{req.name}=={metadata.version(req.name)}")
    out.append(f"apache-beam[gcp]=={metadata.version('apache-beam')}")
    return out


MAIN_PY = '''"""Flex Template launcher: workbench bulk-load with the template's parameters.
Written by `workbench bulk-load --template-out`; Dataflow runs it as
FLEX_TEMPLATE_PYTHON_PY_FILE, and it returns once the job is submitted."""

import sys

from workbench.cli import main

if __name__ == "__main__":
    sys.exit(main(["bulk-load", "{mark}", *sys.argv[1:]]))
'''


def write_template(out_dir: str, parser: argparse.ArgumentParser) -> list[str]:
    """Write metadata.json, main.py, requirements.txt and the Dockerfile to ``out_dir``;
    returns the lines to print (what was written and the build and launch commands)."""
    version = metadata.version(PACKAGE)
    beam = metadata.version("apache-beam")
    wheel = f"{PACKAGE.replace('-', '_')}-{version}-py3-none-any.whl"
    d = Path(out_dir)
    d.mkdir(parents=True, exist_ok=True)
    (d / "metadata.json").write_text(json.dumps(metadata_of(parser), indent=2) + "\n")
    (d / "main.py").write_text(MAIN_PY.replace("{mark}", LAUNCH_MARK))
    reqs = [f"{PACKAGE}[dataflow] @ file:///template/{wheel}", *_pins()]
    (d / "requirements.txt").write_text("\n".join(reqs) + "\n")
    (d / "Dockerfile").write_text(
        f"# workbench bulk-load as a Dataflow Flex Template ({PACKAGE} {version}, Beam {beam})\n"
        f"FROM {LAUNCHER_IMAGE}\n"
        "# the Beam SDK's worker boot: the same image can run the workers (sdk_container_image)\n"
        f"COPY --from={SDK_IMAGE}:{beam} /opt/apache/beam /opt/apache/beam\n"
        "WORKDIR /template\n"
        f"COPY {wheel} requirements.txt main.py /template/\n"
        "RUN pip install --no-cache-dir -r /template/requirements.txt && pip check\n"
        'ENV FLEX_TEMPLATE_PYTHON_PY_FILE="/template/main.py"\n'
        'ENTRYPOINT ["/opt/apache/beam/boot"]\n'
    )
    return [
        f"Flex Template written to {d}: metadata.json ({len(parameters(parser))} parameters), "
        "main.py, requirements.txt, Dockerfile",
        "Build and launch (the wheel first, into the same folder):",
        f"  pip wheel --no-deps -w {d} .",
        f"  gcloud builds submit {d} --tag REGION-docker.pkg.dev/PROJECT/REPO/bulk-load:{version}",
        "  gcloud dataflow flex-template build gs://BUCKET/bulk-load.json "
        f"--image REGION-docker.pkg.dev/PROJECT/REPO/bulk-load:{version} --sdk-language PYTHON "
        f"--metadata-file {d / 'metadata.json'}",
        "  gcloud dataflow flex-template run bulk-load --template-file-gcs-location "
        "gs://BUCKET/bulk-load.json --region REGION --parameters source=gs://…,time=…,…",
    ]
