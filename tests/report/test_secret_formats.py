"""Every credential format the scrubber knows, planted in an executed notebook's code, output
and exception text, is absent from its report and from the index; ordinary text stays.

The planted values are made here from each provider's documented shape (prefix, length,
alphabet), never read from the scrubber: a format the scrubber does not know leaks and fails.
"""

from __future__ import annotations

import html
import random
import string

import nbformat
import pytest
from waits import HANG_S

from workbench.report import Scrubber, build_reports

_RNG = random.Random(36)
ALNUM = string.ascii_letters + string.digits
B64URL = ALNUM + "-_"
HEX = "0123456789abcdef"


def _r(n: int, alphabet: str = ALNUM) -> str:
    return "".join(_RNG.choice(alphabet) for _ in range(n))


def _key_block(kind: str) -> tuple[str, str]:
    body = _r(64, ALNUM + "+/")
    return f"-----BEGIN {kind}-----\n{body}\n{_r(40, ALNUM + '+/')}==\n-----END {kind}-----", body


def _fmt(text: str, secret: str | None = None) -> tuple[str, str]:
    return text, secret if secret is not None else text


_RSA = _key_block("RSA PRIVATE KEY")
_SSH = _key_block("OPENSSH PRIVATE KEY")
_JWT_SIG = _r(43, B64URL)
_AWS_SECRET = _r(40, ALNUM + "/+")
_AZURE = _r(44, ALNUM + "+/") + "=="
_SB = _r(44, ALNUM + "+/") + "="

# name -> (text as a notebook shows it, the part that must not reach the report)
FORMATS: dict[str, tuple[str, str]] = {
    # the seven newer formats the regex scrubber leaked
    "github fine-grained": _fmt("github_pat_11" + _r(20) + "_" + _r(59)),
    "sendgrid": _fmt("SG." + _r(22, B64URL) + "." + _r(43, B64URL)),
    "twilio api key": _fmt("SK" + _r(32, HEX)),
    "npm": _fmt("npm_" + _r(36)),
    "pypi": _fmt("pypi-AgEIcHlwaS5vcmc" + _r(120, B64URL)),
    "google oauth client secret": _fmt("GOCSPX-" + _r(28, B64URL)),
    "redis url without user": (
        "redis://:r3d1s-Pa55w0rd@cache.example.com:6379/0",
        "r3d1s-Pa55w0rd",
    ),
    # the formats covered before
    "rsa private key": _RSA,
    "openssh private key": _SSH,
    "bearer header": ("Authorization: Bearer " + (tok := _r(32, B64URL + ".")), tok),
    "basic header": ("authorization: Basic " + (b := _r(24, ALNUM) + "=="), b),
    "query api_key": ("https://api.example.com/v1?api_key=" + (q := _r(20)), q),
    "query sig": ("https://acct.blob.core.windows.net/c/b?sv=2022-11-02&sig=" + (g := _r(30)), g),
    "unquoted assignment": ("db_password = " + (p := "Tr0ub4dor" + _r(6)), p),
    "aws secret by name": ("aws_secret_access_key = " + _AWS_SECRET, _AWS_SECRET),
    "aws secret after its key id": (
        "AKIA" + _r(16, string.ascii_uppercase) + ":" + _AWS_SECRET,
        _AWS_SECRET,
    ),
    "aws access key id": _fmt("AKIA" + _r(16, string.ascii_uppercase + string.digits)),
    "azure account key": (
        f"DefaultEndpointsProtocol=https;AccountName=meters;AccountKey={_AZURE};"
        "EndpointSuffix=core.windows.net",
        _AZURE,
    ),
    "azure shared access key": (
        f"Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=root;SharedAccessKey={_SB}",
        _SB,
    ),
    "postgres url": ("postgres://alice:" + (pg := "pg-" + _r(10)) + "@db.example.com:5432/m", pg),
    "https url": ("https://bob:" + (hp := _r(12)) + "@api.example.com/v1", hp),
    "slack webhook": (
        "https://hooks.slack.com/services/T" + _r(8) + "/B" + _r(8) + "/" + (sw := _r(24)),
        sw,
    ),
    "slack token": _fmt(
        "xoxb-" + _r(11, string.digits) + "-" + _r(13, string.digits) + "-" + _r(24)
    ),
    "jwt": (
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0." + _JWT_SIG,
        _JWT_SIG,
    ),
    "google oauth access token": _fmt("ya29.a0" + _r(60, B64URL)),
    "google api key": _fmt("AIza" + _r(35, B64URL)),
    "github classic": _fmt("ghp_" + _r(36)),
    "github oauth": _fmt("gho_" + _r(36)),
    "sk- api key": _fmt("sk-proj-" + _r(40, B64URL)),
    "stripe live": _fmt("sk_live_" + _r(24)),
    "stripe test": _fmt("sk_test_" + _r(24)),
    "stripe restricted": _fmt("rk_live_" + _r(24)),
    "gitlab": _fmt("glpat-" + _r(20, B64URL)),
    "hugging face": _fmt("hf_" + _r(34)),
    "jupyter token": ("http://127.0.0.1:8888/lab?token=" + (jt := _r(48, HEX)), jt),
    "quoted password": ('password = "' + (qp := "c0rrect-h0rse-" + _r(6)) + '"', qp),
    "mailchimp": _fmt(_r(32, HEX) + "-us12"),
    "telegram bot": _fmt(_r(9, "123456789") + ":" + _r(35, B64URL)),
    "square oauth secret": _fmt("sq0csp-" + _r(43, B64URL)),
    "quoted random string": ('cfg["seed"] = "' + (rs := _r(40, ALNUM + "+/")) + '"', rs),
}

# Ordinary text of a workbench notebook that must come through unchanged.
KEPT = [
    "sensor-0001#20240101T0000",
    "energy_meters-tall-bcdfgh",
    "cells seen: 1,234 of 5,678",
    "google-cloud-bigtable 2.50.1",
    "passengers = 12",
    'family = "measures"',
]


def _forms(secret: str) -> set[str]:
    return {secret, html.escape(secret), html.escape(secret, quote=False), repr(secret)[1:-1]}


def _assert_clean(text: str, where: str) -> None:
    for name, (_, secret) in FORMATS.items():
        for form in _forms(secret):
            assert form not in text, f"the {name} secret is in {where}"


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_each_format_is_scrubbed_and_caught_by_the_leak_check(name):
    text, secret = FORMATS[name]
    s = Scrubber.for_environment({})
    out = s.text(f"before {text} after")
    assert secret not in out and "[redacted]" in out
    assert out.startswith("before ") and out.endswith(" after")  # the text around stays
    assert s.leaks(out) == []
    if name != "quoted random string":  # an entropy guess redacts, the page check holds formats
        assert s.leaks(text), f"the leak check misses the {name} format"


def test_ordinary_text_is_kept():
    s = Scrubber.for_environment({})
    for line in KEPT:
        assert s.text(line) == line


def _notebook() -> nbformat.NotebookNode:
    texts = [text for text, _ in FORMATS.values()]
    return nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell(f"TEXTS = {texts!r}\nKEPT = {KEPT!r}"),  # in code
            nbformat.v4.new_code_cell("for t in TEXTS + KEPT:\n    print(t)"),  # stream output
            nbformat.v4.new_code_cell(  # rich output, HTML-escaped
                "from IPython.display import HTML\nimport html\n"
                "HTML('<pre>' + html.escape('\\n'.join(TEXTS)) + '</pre>')"
            ),
            nbformat.v4.new_code_cell("raise RuntimeError('\\n'.join(TEXTS))"),  # exception text
        ],
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}},
    )


@pytest.mark.slow  # starts a kernel
def test_planted_formats_leave_an_executed_report_and_its_index(emulator, tmp_path):
    nb = tmp_path / "formats.ipynb"
    nbformat.write(_notebook(), nb)
    out = tmp_path / "reports"
    build_reports([nb], out, emulator=emulator, timeout=HANG_S, allow_errors=True)
    page = (out / "formats.html").read_text()
    assert "RuntimeError" in page  # the exception ran and is shown, scrubbed
    assert page.count("[redacted]") >= 3 * len(FORMATS)  # code, output, exception text
    _assert_clean(page, "the page")
    _assert_clean((out / "index.html").read_text(), "the index")
    for line in KEPT:
        assert html.escape(line) in page or line in page, f"{line!r} was changed"
