"""A notebook holding 100 planted fake secrets of more than 40 formats becomes an HTML report
with none of them, searched as written, HTML-unescaped and URL-decoded.

The values are made here at random from each format's documented shape (prefix, alphabet,
length, as the providers and gitleaks' rules state them), never read from the scrubber: a format
the scrubber does not know leaks and fails. They sit where a notebook shows them: a code cell's
source, printed output, an HTML display, a traceback in ANSI colours, a markdown link, an HTML
anchor, a DataFrame's secret-named columns (its HTML table and its plain-text repr).
"""

from __future__ import annotations

import html
import json
import random
import string
from collections.abc import Callable
from urllib.parse import unquote

import nbformat
import pandas as pd
import pytest

from workbench.report import ReportError, Scrubber, export_html
from workbench.report._secret_columns import column_values, secret_column

RNG = random.Random(45)
ALNUM = string.ascii_letters + string.digits
B64URL = ALNUM + "-_"
HEX = "0123456789abcdef"


def _r(n: int, alphabet: str = ALNUM) -> str:
    return "".join(RNG.choice(alphabet) for _ in range(n))


def _whole(prefix: str, n: int, alphabet: str = ALNUM) -> Callable[[], tuple[str, str]]:
    """A token that is its own secret: prefix + n characters of the alphabet."""

    def make() -> tuple[str, str]:
        token = prefix + _r(n, alphabet)
        return token, token

    return make


def _pem(kind: str) -> tuple[str, str]:
    body = _r(64, ALNUM + "+/")
    return f"-----BEGIN {kind}-----\n{body}\n{_r(44, ALNUM + '+/')}==\n-----END {kind}-----", body


def _service_account() -> tuple[str, str]:
    body = _r(64, ALNUM + "+/")
    key = (
        f"-----BEGIN PRIVATE KEY-----\n{body}\n{_r(40, ALNUM + '+/')}=\n-----END PRIVATE KEY-----\n"
    )
    return json.dumps(
        {
            "type": "service_account",
            "project_id": "meters-prod",
            "private_key_id": _r(40, HEX),
            "private_key": key,  # json.dumps writes its newlines as \n
            "client_email": "loader@meters-prod.iam.gserviceaccount.com",
        },
        indent=2,
    ), body


def _named(text: str, n: int = 18) -> Callable[[], tuple[str, str]]:
    """``text`` with ``{}`` standing for a random n-character value: the secret."""

    def make() -> tuple[str, str]:
        value = _r(n)
        return text.format(value), value

    return make


def _jwt() -> tuple[str, str]:
    token = "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9." + "eyJ" + _r(60, B64URL) + "." + _r(86, B64URL)
    return token, token


def _url_password(template: str) -> Callable[[], tuple[str, str]]:
    def make() -> tuple[str, str]:
        pw = _r(6) + "-" + _r(8)
        return template.format(pw), pw

    return make


def _aws_secret_after_id() -> tuple[str, str]:
    secret = _r(40, ALNUM + "/+")
    return "AKIA" + _r(16, string.ascii_uppercase + string.digits) + ":" + secret, secret


def _slack_webhook() -> tuple[str, str]:
    path = _r(24)
    return f"https://hooks.slack.com/services/T{_r(8)}/B{_r(8)}/{path}", path


def _azure() -> tuple[str, str]:
    key = _r(86, ALNUM + "+/") + "=="
    return (
        f"DefaultEndpointsProtocol=https;AccountName=meters;AccountKey={key};"
        "EndpointSuffix=core.windows.net"
    ), key


# format -> a maker of (text as a notebook prints it, the secret that must not reach the report)
FORMATS: dict[str, Callable[[], tuple[str, str]]] = {
    "shopify access token": _whole("shpat_", 32, HEX),
    "shopify shared secret": _whole("shpss_", 32, HEX),
    "vault service token": _whole("hvs.", 90, B64URL),
    "vault batch token": _whole("hvb.", 120, B64URL),
    "groq api key": _whole("gsk_", 52),
    "doppler personal token": _whole("dp.pt.", 43),
    "doppler service token": _whole("dp.st.prd.", 40),
    "linear api key": _whole("lin_api_", 40),
    "replicate api token": _whole("r8_", 37),
    "digitalocean personal token": _whole("dop_v1_", 64, HEX),
    "digitalocean oauth token": _whole("doo_v1_", 64, HEX),
    "databricks token": _whole("dapi", 32, HEX),
    "mailgun api key": _whole("key-", 32, HEX),
    "atlassian api token": lambda: (t := "ATATT3xFfGF0" + _r(170, B64URL) + "=" + _r(8, HEX), t),
    "stripe webhook secret": _whole("whsec_", 32),
    "gitlab personal token": _whole("glpat-", 20, B64URL),
    "gitlab deploy token": _whole("gldt-", 20, B64URL),
    "gitlab runner token": _whole("glrt-", 20, B64URL),
    "github classic token": _whole("ghp_", 36),
    "github fine-grained token": lambda: (t := "github_pat_11" + _r(22) + "_" + _r(59), t),
    "slack bot token": lambda: (
        t := f"xoxb-{_r(11, string.digits)}-{_r(13, string.digits)}-{_r(24)}",
        t,
    ),
    "slack webhook": _slack_webhook,
    "aws access key id": _whole("AKIA", 16, string.ascii_uppercase + string.digits),
    "aws secret by name": _named("aws_secret_access_key = {}", 40),
    "aws secret after its key id": _aws_secret_after_id,
    "gcp api key": _whole("AIza", 35, B64URL),
    "google oauth token": _whole("ya29.a0", 60, B64URL),
    "google oauth client secret": _whole("GOCSPX-", 28, B64URL),
    "rsa private key": lambda: _pem("RSA PRIVATE KEY"),
    "ec private key": lambda: _pem("EC PRIVATE KEY"),
    "openssh private key": lambda: _pem("OPENSSH PRIVATE KEY"),
    "jwt": _jwt,
    "service-account json": _service_account,
    "basic-auth url": _url_password("https://loader:{}@api.example.com/v1/meters"),
    "postgres url": _url_password("postgres://alice:{}@db.example.com:5432/meters"),
    "netrc on one line": _named("machine api.example.com login alice password {}", 16),
    "netrc on three lines": _named("machine git.example.com\n  login bob\n  password {}", 16),
    "password= assignment": _named("password={}", 14),
    "token: in yaml": _named("token: {}", 24),
    "quoted api_key": _named('api_key = "{}"', 32),
    "bearer header": _named("Authorization: Bearer {}", 40),
    "npm token": _whole("npm_", 36),
    "pypi token": _whole("pypi-AgEIcHlwaS5vcmc", 120, B64URL),
    "sendgrid key": lambda: (t := "SG." + _r(22, B64URL) + "." + _r(43, B64URL), t),
    "twilio api key": _whole("SK", 32, HEX),
    "openai project key": _whole("sk-proj-", 48, B64URL),
    "hugging face token": _whole("hf_", 34),
    "telegram bot token": lambda: (t := _r(10, "123456789") + ":AA" + _r(33, B64URL), t),
    "azure storage key": _azure,
    "square oauth secret": _whole("sq0csp-", 43, B64URL),
    "grafana service account token": lambda: (t := "glsa_" + _r(32) + "_" + _r(8, HEX), t),
    "postman api key": lambda: (t := "PMAK-" + _r(24, HEX) + "-" + _r(34, HEX), t),
    "jupyter token in a url": lambda: (
        "http://127.0.0.1:8888/lab?token=" + (t := _r(48, HEX)),
        t,
    ),
}
# Formats with their own place in the notebook (below): DataFrame columns, links, ANSI colours.
PLACED = [
    "dataframe password column",
    "dataframe api_key column",
    "dataframe authToken column",
    "markdown link with userinfo",
    "markdown autolink with userinfo",
    "html anchor with userinfo",
    "ansi-coloured assignment",
]
N_VALUES = 100

FRAME = pd.DataFrame(
    {
        "meter": ["m-001", "m-002", "m-003"],
        "password": [_r(12) for _ in range(3)],
        "api_key": [_r(8), _r(30), _r(5)],
        "authToken": [_r(20, HEX) for _ in range(3)],
    }
)
MD_PW, AUTO_PW, A_PW, ANSI_PW, ANSI_TOKEN = (_r(7) + "-" + _r(5) for _ in range(5))
PLACED_VALUES = [
    *(("dataframe password column", v) for v in FRAME["password"]),
    *(("dataframe api_key column", v) for v in FRAME["api_key"]),
    *(("dataframe authToken column", v) for v in FRAME["authToken"]),
    ("markdown link with userinfo", MD_PW),
    ("markdown autolink with userinfo", AUTO_PW),
    ("html anchor with userinfo", A_PW),
    ("ansi-coloured assignment", ANSI_PW),
    ("ansi-coloured assignment", ANSI_TOKEN),
]


def _planted() -> list[tuple[str, str, str]]:
    """(format, text, secret): every format once, then again in order until 100 values."""
    out: list[tuple[str, str, str]] = []
    names = list(FORMATS)
    while len(out) + len(PLACED_VALUES) < N_VALUES:
        name = names[len(out) % len(names)]
        out.append((name, *FORMATS[name]()))
    return out


PLANTED = _planted()
SECRETS = [(name, secret) for name, _, secret in PLANTED] + PLACED_VALUES


def _ansi(text: str) -> str:
    return f"\x1b[0;31m{text}\x1b[0m"


def _notebook() -> nbformat.NotebookNode:
    texts = [text for _, text, _ in PLANTED]
    joined = "\n".join(texts)
    frame_html = FRAME._repr_html_()
    return nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell(
                f"Connect to [the meter database](postgres://alice:{MD_PW}@db.example.com/m) "
                f"or <https://bob:{AUTO_PW}@api.example.com/v1>."
            ),
            nbformat.v4.new_code_cell(
                f"TEXTS = {texts!r}\nfor t in TEXTS:\n    print(t)",
                outputs=[nbformat.v4.new_output("stream", name="stdout", text=joined + "\n")],
                execution_count=1,
            ),
            nbformat.v4.new_code_cell(
                "HTML('<pre>' + html.escape(chr(10).join(TEXTS)) + '</pre>')",
                outputs=[
                    nbformat.v4.new_output(
                        "display_data",
                        data={
                            "text/html": "<pre>" + html.escape(joined) + "</pre>"
                            f'<a href="https://carol:{A_PW}@grafana.example.com/d/1">dashboard</a>',
                            "text/plain": "<IPython.core.display.HTML object>",
                        },
                    )
                ],
                execution_count=2,
            ),
            nbformat.v4.new_code_cell(
                "raise RuntimeError(chr(10).join(TEXTS))",
                outputs=[
                    nbformat.v4.new_output(
                        "error",
                        ename="RuntimeError",
                        evalue=joined,
                        traceback=[
                            _ansi("RuntimeError") + "                 Traceback",
                            *(_ansi(t) for t in texts),
                            "\x1b[1mpassword\x1b[0m=\x1b[32m" + ANSI_PW + "\x1b[0m",
                            "\x1b[0;31mtoken: \x1b[0m\x1b[1;32m'" + ANSI_TOKEN + "'\x1b[0m",
                        ],
                    )
                ],
                execution_count=3,
            ),
            nbformat.v4.new_code_cell(
                "frame",
                outputs=[
                    nbformat.v4.new_output(
                        "execute_result",
                        data={"text/html": frame_html, "text/plain": repr(FRAME)},
                        execution_count=4,
                    ),
                    nbformat.v4.new_output(
                        "stream", name="stdout", text=FRAME.to_string(index=False) + "\n"
                    ),
                ],
                execution_count=4,
            ),
        ],
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}},
    )


def test_the_plant_is_100_values_of_more_than_40_formats():
    assert len(SECRETS) == N_VALUES
    assert len({secret for _, secret in SECRETS}) == N_VALUES  # each value different
    assert len(FORMATS) + len(PLACED) >= 40
    assert {name for name, _ in SECRETS} == set(FORMATS) | set(PLACED)  # every format planted


def test_no_planted_value_reaches_the_report():
    page, _ = export_html(
        _notebook(), stem="planted", notebook="planted.ipynb", scrubber=Scrubber.for_environment({})
    )
    readings = {"as written": page, "unescaped": html.unescape(page)}
    readings["url-decoded"] = unquote(readings["unescaped"])
    left = [
        f"{name} in the page {how}"
        for name, secret in SECRETS
        for how, text in readings.items()
        if secret in text
    ]
    assert left == []
    # What surrounds a secret stays, so the report still says what was connected to.
    assert "dashboard" in page and "grafana.example.com" in page
    assert "db.example.com" in page and "m-002" in page and "meter database" in page


@pytest.mark.parametrize(
    "prefix", ["glpat-", "gldt-", "glrt-", "ghp_"], ids=["glpat", "gldt", "glrt", "ghp"]
)
def test_a_token_whose_pattern_groups_its_prefix_goes_whole(prefix):
    # detect-secrets' GitLab (and GitHub) pattern captures only the prefix: (glpat|gldt|…)-…
    body = _r(36 if prefix == "ghp_" else 20)
    out = Scrubber.for_environment({}).text(f"token {prefix}{body} in use")
    assert body not in out
    assert out == "token [redacted] in use"


def test_ansi_coloured_and_markdown_linked_secrets_still_give_a_report():
    # Each case on its own, as the issue found them: no report at all, an error naming
    # '[redacted]' as the secret left.
    md = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_markdown_cell("[db](https://alice:S3cretPw9x@db.example.com/x)")]
    )
    page, _ = export_html(md, stem="md", notebook="md.ipynb", scrubber=Scrubber.for_environment({}))
    assert "S3cretPw9x" not in page and "db.example.com" in page
    ansi = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell(
                "login()",
                outputs=[
                    nbformat.v4.new_output(
                        "stream", name="stdout", text="\x1b[31mpassword=Hunter2Pw9\x1b[0m\n"
                    )
                ],
            )
        ]
    )
    page, _ = export_html(ansi, stem="a", notebook="a.ipynb", scrubber=Scrubber.for_environment({}))
    assert "Hunter2Pw9" not in page and "password=" in page


class _Blind(Scrubber):
    """A scrubber that replaces nothing: what it leaves, the leak check must name."""

    def text(self, s: str) -> str:
        return s


def test_what_cannot_be_scrubbed_is_named_by_cell_and_kind_never_by_value():
    token = "glpat-" + _r(20, B64URL)
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell("# Loading"),
            nbformat.v4.new_code_cell(
                "connect()",
                outputs=[nbformat.v4.new_output("stream", name="stdout", text=f"using {token}\n")],
            ),
        ]
    )
    with pytest.raises(ReportError) as err:
        export_html(nb, stem="b", notebook="b.ipynb", scrubber=_Blind())
    message = str(err.value)
    assert "GitLab Token in cell 2 (code, its output)" in message
    assert token not in message and token[6:] not in message
    assert "[redacted]" not in message and "redacted" not in message


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("password", True),
        ("db_password", True),
        ("api_key", True),
        ("apiKey", True),
        ("authToken", True),
        ("client_secret", True),
        ("token_count", False),  # about tokens, not one
        ("passengers", False),
        ("keys", False),
        ("meter", False),
    ],
)
def test_columns_named_like_secrets(name, secret):
    assert secret_column(name) is secret


def test_secret_column_values_are_read_from_html_and_plain_text():
    frame = pd.DataFrame({"meter": ["m1", "m2"], "password": ["hunter22", "pass word"]})
    want = [("password", "hunter22"), ("password", "pass word")]
    assert column_values(frame._repr_html_(), html=True) == want
    assert column_values(repr(frame), html=False) == want
    assert column_values(frame.to_string(index=False), html=False) == want
    assert column_values(repr(frame.set_index("meter")), html=False) == want
    # A sentence naming a password is no table: nothing is learnt from it.
    assert column_values("Enter your password below\nthen press the button", html=False) == []


def test_ordinary_text_near_the_new_formats_is_kept():
    s = Scrubber.for_environment({})
    for line in [
        "the default password is set by the machine admin",  # .netrc words in prose
        "machine learning on key-value rows",
        "dapi is not a token, nor is key-1",
        "r8_sensors and gsk_rate are column names",
        "hvs.total = 3; dp.pt.count = 4",
        "[redacted] stays [redacted]",
    ]:
        assert s.text(line) == line


def test_neighbouring_spans_are_not_read_as_one_run_but_colour_spans_are():
    """A figure's labels (row keys of 20 digits, each in its own span) are not a 40-digit hex
    token; a secret split by colour spans is still found whole."""
    scrubber = Scrubber()
    keys = "".join(f"<span>{k}</span>" for k in ("20150301220741599935", "20150304102816446991"))
    assert scrubber.leak_kinds(f"<div>{keys}</div>") == {}
    token = "glpat-" + "Ab3dEf6hIj9kLm2nOp5q"
    coloured = (
        f"<span class='ansi-red-fg'>{token[:9]}</span><span class='ansi-blue-fg'>{token[9:]}</span>"
    )
    assert token in scrubber.leak_kinds(f"<pre>{coloured}</pre>")
