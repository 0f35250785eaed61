"""Secret formats beyond the first set: AWS secret access keys, Stripe, GitLab, Hugging Face,
Azure connection strings, ``%env`` values of *_PASS / *_PWD names — in outputs, in an exception
message, in the index and on the command line's stderr; and a remote emulator host needs the
production opt-in before any socket is opened."""

from __future__ import annotations

import html
import socket
import threading

import nbformat
import pytest

import workbench as wb
from workbench import cli
from workbench.bigtable import emulator as emu_mod
from workbench.bigtable.connection import Connection
from workbench.report import Scrubber, build_reports, export_html, main_report

AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
STRIPE_LIVE = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"
STRIPE_TEST = "sk_test_BQokikJOvBiI2HlWgH4olfQ2"
GITLAB = "glpat-Xq3vR8sT2uW5yZ1aB4cD"
HUGGING = "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"
AZURE_KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsu"
DB_PASS = "hunter7"  # %env DB_PASS=...: short, so only its name marks it
MYSQL_PWD = "pw42"

OUTPUT = "\n".join(
    [
        f"aws_secret_access_key = {AWS_SECRET}",
        f"AKIAIOSFODNN7EXAMPLE:{AWS_SECRET}",
        f"stripe test key {STRIPE_TEST}",
        f"gitlab {GITLAB}, hub {HUGGING}",
        f"DefaultEndpointsProtocol=https;AccountName=meters;AccountKey={AZURE_KEY};"
        "EndpointSuffix=core.windows.net",
        f"connected as root with {DB_PASS} / {MYSQL_PWD}",
    ]
)
SECRETS = {
    "aws secret access key": AWS_SECRET,
    "stripe live": STRIPE_LIVE,
    "stripe test": STRIPE_TEST,
    "gitlab": GITLAB,
    "hugging face": HUGGING,
    "azure account key": AZURE_KEY,
    "%env DB_PASS": DB_PASS,
    "%env MYSQL_PWD": MYSQL_PWD,
}


def _notebook() -> nbformat.NotebookNode:
    return nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell(f"%env DB_PASS={DB_PASS}\n%env MYSQL_PWD={MYSQL_PWD}"),
            nbformat.v4.new_code_cell(
                "print(keys)",
                outputs=[nbformat.v4.new_output("stream", name="stdout", text=OUTPUT)],
            ),
            nbformat.v4.new_code_cell(
                "charge()",
                outputs=[
                    nbformat.v4.new_output(
                        "error",
                        ename="AuthenticationError",
                        evalue=f"Invalid API Key provided: {STRIPE_LIVE}",
                        traceback=[f"AuthenticationError: Invalid API Key provided: {STRIPE_LIVE}"],
                    )
                ],
            ),
        ]
    )


def _assert_clean(text: str, where: str) -> None:
    for kind, secret in SECRETS.items():
        for form in {secret, html.escape(secret)}:
            assert form not in text, f"{kind} secret is in {where}"


def test_no_planted_secret_of_the_new_kinds_reaches_the_page():
    page, facts = export_html(
        _notebook(), stem="keys", notebook="keys.ipynb", scrubber=Scrubber.for_environment({})
    )
    _assert_clean(page, "the page")
    _assert_clean(repr(facts.to_dict()), "the index entry")
    assert "AccountKey=[redacted]" in page and "aws_secret_access_key = [redacted]" in page


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_leak_check_finds_each_new_kind_when_scrubbing_is_skipped(kind):
    s = Scrubber.for_environment({})
    s.learn_source(f"%env DB_PASS={DB_PASS}\n%env MYSQL_PWD={MYSQL_PWD}")
    line = next(
        (ln for ln in OUTPUT.splitlines() if SECRETS[kind] in ln),
        f"Invalid API Key provided: {STRIPE_LIVE}",
    )
    assert s.leaks(line), f"the leak check misses the {kind} secret"
    assert s.leaks(s.text(line)) == []


def test_names_with_pass_as_a_word_only():
    s = Scrubber.for_environment({"DB_PASS": "hunter7", "PASSENGER_COUNT": "1234567"})
    assert s.text("hunter7 carried 1234567") == "[redacted] carried 1234567"


def test_an_exception_text_is_scrubbed_in_the_index_and_on_stderr(tmp_path, capsys):
    nb = tmp_path / "keys.ipynb"
    nbformat.write(_notebook(), nb)
    out = tmp_path / "reports"
    with pytest.raises(wb.WorkbenchError) as ei:  # the failed cell is reported, scrubbed
        build_reports([nb], out, execute=False)
    assert "cell 3" in str(ei.value)
    _assert_clean(str(ei.value), "the error")
    _assert_clean((out / "index.html").read_text(), "index.html")
    _assert_clean((out / "keys.html").read_text(), "the page")
    assert main_report([str(nb), "--out", str(out), "--no-execute"]) == 1
    err = capsys.readouterr().err
    assert "AuthenticationError" in err
    _assert_clean(err, "stderr")


@pytest.fixture
def remote_listener():
    """A TCP listener on this machine's non-loopback address that counts its connections."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    probe.connect(("10.255.255.255", 1))  # no packet is sent: picks the outbound interface
    addr = probe.getsockname()[0]
    probe.close()
    assert not addr.startswith("127."), "this machine needs a non-loopback address"
    srv = socket.socket()
    srv.bind((addr, 0))
    srv.listen(8)
    accepted: list[object] = []

    def serve() -> None:
        while True:
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            accepted.append(conn)
            conn.close()

    threading.Thread(target=serve, daemon=True).start()
    yield f"{addr}:{srv.getsockname()[1]}", accepted
    srv.close()


def test_a_remote_emulator_host_without_the_opt_in_gets_no_connection(
    remote_listener, monkeypatch, capsys
):
    host, accepted = remote_listener
    monkeypatch.delenv("WORKBENCH_ALLOW_PRODUCTION", raising=False)
    monkeypatch.setenv(emu_mod.ENV_HOST, host)
    with pytest.raises(wb.ProductionNotAllowed, match=r"not on this machine.*No connection"):
        wb.Emulator().start()
    with pytest.raises(wb.ProductionNotAllowed):
        Connection.emulator(host)
    from workbench import session

    monkeypatch.setattr(session, "SESSION", session.Session())
    info = wb.setup()
    assert not info.emulator_ok and "WORKBENCH_ALLOW_PRODUCTION=1" in info.problem
    assert cli.main(["emulator", "status"]) == 2
    assert "not on this machine" in capsys.readouterr().err
    assert accepted == []  # not one connection was made
    # with the opt-in the same host is dialled (and found to be no emulator)
    monkeypatch.setenv("WORKBENCH_ALLOW_PRODUCTION", "1")
    with pytest.raises(wb.EmulatorError):
        wb.Emulator().start()
    assert len(accepted) >= 1
