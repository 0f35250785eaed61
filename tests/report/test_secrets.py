"""Each kind of secret planted in a notebook is absent from its HTML report, escaped or not."""

from __future__ import annotations

import html

import nbformat
import pytest

from workbench.report import Scrubber, export_html

pytestmark = pytest.mark.slow  # executes notebooks into reports

# Each planted secret and how it reaches the notebook.
ENV = {
    "DB_PASSWORD": "abc&def<ghi>",  # shows up HTML-escaped in a rendered output
    "BANK_PIN_SECRET": "48213957",  # all digits
    "SHORT_TOKEN": "qz7k",  # under 6 characters
}
URL_PG = "postgres://alice:pg-Pa55word@db.example.com:5432/meters"
URL_HTTPS = "https://bob:h77ps-secret@api.example.com/v1"
SLACK = "https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/cccccccccccccccccccccccc"
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
    "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ."
    "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
ENV_MAGIC_TOKEN = "m4g1c"  # set with %env inside the notebook: not in the kernel's environment
SECRETS = {
    "escaped": ENV["DB_PASSWORD"],
    "digits": ENV["BANK_PIN_SECRET"],
    "short": ENV["SHORT_TOKEN"],
    "postgres password": "pg-Pa55word",
    "https password": "h77ps-secret",
    "slack webhook": "B0BBBBBBB/cccccccccccccccccccccccc",
    "jwt": JWT.split(".")[2],
    "%env token": ENV_MAGIC_TOKEN,
}


def _notebook() -> nbformat.NotebookNode:
    out = "\n".join(
        [
            f"password in use: {ENV['DB_PASSWORD']}",
            f"pin {ENV['BANK_PIN_SECRET']} and short token {ENV['SHORT_TOKEN']}",
            URL_PG,
            URL_HTTPS,
            SLACK,
            JWT,
            f"magic {ENV_MAGIC_TOKEN}",
        ]
    )
    return nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell("# Secrets"),
            nbformat.v4.new_code_cell(f"%env MAGIC_TOKEN={ENV_MAGIC_TOKEN}"),
            nbformat.v4.new_code_cell(
                f"dsn = {URL_PG!r}\nhook = {SLACK!r}\nprint(open('creds').read())",
                outputs=[
                    nbformat.v4.new_output("stream", name="stdout", text=out),
                    nbformat.v4.new_output(
                        "display_data",
                        data={"text/html": f"<pre>{html.escape(out)}</pre>", "text/plain": out},
                    ),
                    nbformat.v4.new_output(
                        "execute_result",
                        data={"text/plain": repr(out)},
                        execution_count=2,
                    ),
                ],
            ),
        ]
    )


def test_no_planted_secret_reaches_the_html_escaped_or_not():
    scrubber = Scrubber.for_environment(ENV)
    page, _ = export_html(_notebook(), stem="secrets", notebook="secrets.ipynb", scrubber=scrubber)
    for kind, secret in SECRETS.items():
        for form in {secret, html.escape(secret), html.escape(secret, quote=False)}:
            assert form not in page, f"{kind} secret {form!r} is in the report"
    # What stays: the user and host of each URL, so the report still says what was connected.
    assert "postgres://alice:[redacted]@db.example.com" in page
    assert "https://bob:[redacted]@api.example.com" in page


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_leak_check_finds_each_kind_when_scrubbing_is_skipped(kind):
    scrubber = Scrubber.for_environment(ENV)
    scrubber.learn_source(f"%env MAGIC_TOKEN={ENV_MAGIC_TOKEN}")
    text = {
        "escaped": f"<p>{html.escape(ENV['DB_PASSWORD'])}</p>",
        "digits": f"pin {ENV['BANK_PIN_SECRET']}.",
        "short": f"token is {ENV['SHORT_TOKEN']}",
        "postgres password": URL_PG,
        "https password": URL_HTTPS,
        "slack webhook": SLACK,
        "jwt": JWT,
        "%env token": f"magic {ENV_MAGIC_TOKEN}",
    }[kind]
    assert scrubber.leaks(text), f"the leak check misses the {kind} secret"
    assert scrubber.leaks(scrubber.text(text)) == []


def test_short_secrets_are_matched_as_whole_words_only():
    s = Scrubber.for_environment({"BANK_PIN_SECRET": "4821"})
    # 4821 inside 148210 is another number, not the PIN.
    assert s.text("pin 4821, total 148210") == "pin [redacted], total 148210"
