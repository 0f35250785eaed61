"""Strip secrets and local paths from a notebook before it becomes a report.

A report travels: it is mailed to attendees and attached to design reviews. It
must not carry the Jupyter token of the machine that made it, the emulator's
address, credentials from environment variables, or the author's home and
working directories. Everything textual in the notebook (sources, outputs,
metadata, saved widget state) goes through one :class:`Scrubber`; binary
payloads (PNG, JPEG, widget buffers) are left alone.
"""

from __future__ import annotations

import html
import os
import re
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from detect_secrets.core.plugins.util import (
    get_mapping_from_secret_type_to_class,
    get_plugins_from_module,
)
from detect_secrets.filters import heuristic
from detect_secrets.plugins.base import BasePlugin, RegexBasedDetector
from detect_secrets.plugins.high_entropy_strings import HighEntropyStringsPlugin

from . import _secret_plugins
from ._secret_columns import column_values

REDACTED = "[redacted]"
_HOST_PLACEHOLDER = "[emulator-host]"
_EXACT_KINDS = {_HOST_PLACEHOLDER: "the emulator's address"}

# Environment variables whose values are secrets, by name.
# *_PASS and *_PWD (DB_PASS, MYSQL_PWD) as whole name parts: PASSENGER_COUNT is no secret.
_PASS_PART = r"(?:^|_)(?:PASS|PWD|PASSPHRASE)(?:_|$)"
_SECRET_NAME = re.compile(
    r"TOKEN|SECRET|PASSW|CREDENTIAL|API_?KEY|ACCESS_?KEY|PRIVATE|AUTH|SESSION|COOKIE|SIGNATURE|"
    + _PASS_PART,
    re.I,
)
# Names that leave no doubt: their values are redacted however short or numeric (a 4-digit
# PIN, a 5-letter password), matched as whole words so other text is not cut up.
_STRONG_SECRET_NAME = re.compile(
    r"TOKEN|SECRET|PASSW|API_?KEY|ACCESS_?KEY|PRIVATE|CREDENTIAL|" + _PASS_PART, re.I
)
_PASSES = 64  # scans of one text at most: a keyword plugin finds one value per line and pattern
_MIN_SHORT_SECRET = 3  # one or two characters protect nothing and would match everywhere
# Secrets set inside the notebook itself: `%env NAME=value`, `%env NAME value`,
# `os.environ["NAME"] = "value"`, `os.environ.setdefault("NAME", "value")`.
_ENV_IN_SOURCE = (
    re.compile(r"^\s*%env\s+([A-Za-z_][A-Za-z0-9_]*)\s*[= ]\s*(\S.*?)\s*$", re.M),
    re.compile(
        r"os\.environ\[\s*[\"']([A-Za-z_][A-Za-z0-9_]*)[\"']\s*\]\s*=\s*[\"']([^\"']+)[\"']"
    ),
    re.compile(
        r"os\.environ\.setdefault\(\s*[\"']([A-Za-z_][A-Za-z0-9_]*)[\"']\s*,\s*[\"']([^\"']+)[\"']"
    ),
)
# Environment variables whose values are addresses of local services.
_HOST_NAMES = (
    "BIGTABLE_EMULATOR_HOST",
    "PUBSUB_EMULATOR_HOST",
    "DATASTORE_EMULATOR_HOST",
    "SPANNER_EMULATOR_HOST",
    "FIRESTORE_EMULATOR_HOST",
)

# Secrets recognised by their format, with no environment: detect-secrets' plugins (its
# regex detectors, its keyword detector and its two entropy checks) and, for formats none of
# them finds as a notebook writes them, the workbench's own detect-secrets plugins
# (`_secret_plugins.py`). A plugin returns the secret's value, so what surrounds it stays:
# "postgres://alice:[redacted]@db", "password=[redacted]".
_NOT_SECRETS = frozenset({"IPPublicDetector"})  # a public IP address says nothing secret
_MIN_SECRET = 4  # shorter "values" (a keyword detector's `"abc"`) protect nothing
# ANSI escape sequences (colours in tracebacks and coloured logs: CSI `ESC[…m`, OSC `ESC]…BEL`):
# secrets are looked for in the text without them, `\x1b[1mpassword=\x1b[32mvalue` included.
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
# What nbconvert makes of ANSI colours in a page: spans of an ``ansi-…`` class or a colour
# style. The leak check reads through them; other spans stay, so the text of two neighbouring
# spans (a figure's date labels, row keys) is never read as one run of characters.
_ANSI_SPAN = re.compile(r"<span\b[^>]*(?:ansi-|color:)[^>]*>|</span>")


def _plugins() -> list[BasePlugin]:
    """detect-secrets' built-in plugins, then the workbench's."""
    classes: list[type[BasePlugin]] = [
        *get_mapping_from_secret_type_to_class().values(),
        *get_plugins_from_module(_secret_plugins),
    ]
    return [cls() for cls in classes if cls.__name__ not in _NOT_SECRETS]


_PLUGINS = _plugins()
# Plugins whose patterns need a word naming a secret (detect-secrets' keyword plugin, its
# `build_assignment_regex` plugins, the workbench's unquoted assignments) run on the lines that
# hold such a word; every other pattern plugin runs over the whole text at once (a pattern stops
# at a line's end where its format does; a private key block spans lines). Cloudant's
# `user:password@account.cloudant.com` form needs no word: UrlPasswordDetector finds it.
_NAMED = frozenset(
    {
        "KeywordDetector",
        "IbmCloudIamDetector",
        "IbmCosHmacDetector",
        "SoftlayerDetector",
        "CloudantDetector",
        "UnquotedAssignmentDetector",
    }
)
_SECRET_WORD = re.compile(r"key|pw|pass|token|secret|contras", re.I)
_ENTROPY_PLUGINS = [p for p in _PLUGINS if isinstance(p, HighEntropyStringsPlugin)]
_NAMED_PLUGINS = [p for p in _PLUGINS if type(p).__name__ in _NAMED]
_TEXT_PLUGINS = [p for p in _PLUGINS if p not in _ENTROPY_PLUGINS + _NAMED_PLUGINS]


def _named_lines(text: str) -> list[str]:
    """The lines of ``text`` that hold a word naming a secret, each once, in order."""
    lines: dict[str, None] = {}
    end = -1
    for m in _SECRET_WORD.finditer(text):
        if m.start() <= end:
            continue  # this line is in already
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        end = len(text) if end < 0 else end
        lines[text[start:end]] = None
    return list(lines)


def _random_enough(plugin: HighEntropyStringsPlugin, value: str, text: str) -> bool:
    """detect-secrets' entropy check with its heuristic filters (sequences, UUIDs, IDs,
    templates), as its own scan applies them."""
    if plugin.calculate_shannon_entropy(value) <= plugin.entropy_limit:
        return False
    at = text.find(value)
    line = text[text.rfind("\n", 0, at) + 1 : text.find("\n", at) % (len(text) + 1)]
    return not (
        heuristic.is_sequential_string(value)
        or heuristic.is_potential_uuid(value)
        or heuristic.is_likely_id_string(value, line, plugin)
        or heuristic.is_templated_secret(value)
    )


def _values(plugin: BasePlugin, text: str) -> Iterator[str]:
    """The secrets ``plugin`` finds in ``text``, each whole.

    A regex plugin's capturing group is the secret when it marks one part of a longer match
    (``://user:(password)@``); a group that only opens the match names the kind (GitLab's
    ``(glpat|gldt|…)-…``, GitHub's ``(ghp|gho|…)_…``) and one too short to protect anything is a
    detail of the format (GitLab's ``glcbt-`` partition): then the secret is the whole match, so
    the token goes, not its prefix. Other plugins answer for themselves.
    """
    if not isinstance(plugin, RegexBasedDetector):
        yield from plugin.analyze_string(text)
        return
    for regex in plugin.denylist:
        for m in regex.finditer(text):
            parts = [
                m.group(i)
                for i in range(1, regex.groups + 1)
                if m.group(i)
                and len(m.group(i)) >= _MIN_SECRET
                and (m.start(i) > m.start() or m.end(i) == m.end())  # not a kind-naming prefix
            ]
            yield from parts or [m.group(0)]


def detect_kinds(text: str, *, guesses: bool = True) -> dict[str, str]:
    """The secret values detect-secrets' plugins and the workbench's find in ``text``, each with
    the kind of secret it is (the plugin's ``secret_type``: "GitLab Token", ".netrc password").

    ``guesses=False`` leaves out the entropy checks: a quoted random-looking string is redacted
    when scrubbing, but the leak check of a whole page (nbconvert's template, its scripts and
    styles included) holds only to the formats. Text is read without its ANSI colour codes.
    """
    text = _ANSI.sub("", text)
    unescaped = html.unescape(text)  # HTML output: `password = &quot;…&quot;` is quoted too
    if unescaped != text:
        text = text + "\n" + unescaped
    found: dict[str, str] = {}
    for plugin in _TEXT_PLUGINS:
        found.update(dict.fromkeys(_values(plugin, text), plugin.secret_type))
    for entropy in _ENTROPY_PLUGINS if guesses else ():
        for v in entropy.analyze_string(text):
            if _random_enough(entropy, v, text):
                found.setdefault(v, entropy.secret_type)
    for line in _named_lines(text):  # the keyword plugin finds one value per pattern and line
        for plugin in _NAMED_PLUGINS:
            for v in _values(plugin, line):
                found.setdefault(v, plugin.secret_type)
    return {v: kind for v, kind in found.items() if len(v) >= _MIN_SECRET and not _done(v)}


def detect(text: str, *, guesses: bool = True) -> set[str]:
    """The secret values in ``text`` (:func:`detect_kinds` without the kinds)."""
    return set(detect_kinds(text, guesses=guesses))


def _done(value: str) -> bool:
    """Whether ``value`` holds the placeholder (as written, URL-encoded or HTML-escaped): a
    value already replaced is never reported as a secret left."""
    return REDACTED in unquote(html.unescape(value))


# Local absolute paths that say who made the report and where.
_PATH_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"(?:/private)?/(?:tmp|var/tmp|var/folders|dev/shm)/[^\s\"'<>:,;)\]]*"), "[tmp]"),
    (re.compile(r"(?<![\w.~\]])/(?:root|home/[^/\s\"'<>]+|Users/[^/\s\"'<>]+)(?=/|\b)"), "~"),
    (re.compile(r"(?<![\w.~\]])/work(?=/)"), "[local]"),
    (re.compile(r"(?i)\b[A-Z]:\\Users\\[^\\\s\"'<>]+"), "~"),
)
_PUBLIC_DIRS = frozenset(
    {"/", "/usr", "/usr/local", "/opt", "/tmp", "/var", "/var/tmp", "/srv", "/home"}
)
_LOOPBACK = re.compile(r"\b(127\.0\.0\.1|localhost|0\.0\.0\.0|\[::1\]):\d{2,5}\b")

# Keys whose values are binary or identifiers: never rewritten.
_SKIP_KEYS = frozenset(
    {
        "image/png",
        "image/jpeg",
        "image/gif",
        "image/webp",
        "image/bmp",
        "application/pdf",
        "application/vnd.jupyter.widget-view+json",
        "buffers",
        "model_id",
        "id",
    }
)


@dataclass
class Scrubber:
    """Replaces known secret values, secret-looking patterns and local paths in text.

    ``exact`` maps literal strings (environment values, the repository path) to
    their placeholder; they are applied longest first so a deeper path wins.
    """

    exact: dict[str, str] = field(default_factory=dict)
    paths: dict[str, str] = field(default_factory=dict)
    words: dict[str, str] = field(default_factory=dict)  # short/numeric secrets: whole words
    kinds: dict[str, str] = field(default_factory=dict)  # value -> what it is, for errors

    def add_secret(
        self, name: str, value: str, placeholder: str = REDACTED, *, kind: str | None = None
    ) -> None:
        """Redact ``value`` (of variable ``name``; what it is, for errors: ``kind``) as written
        and as HTML-escaped.

        Long values are replaced wherever they occur; short or all-digit values of
        unmistakably secret names only as whole words, so "1234" in "12345" stays.
        """
        value = value.strip().strip("\"'")
        if not value:
            return
        long_enough = len(value) >= 6 and not value.isdigit()
        if not long_enough and not (
            _STRONG_SECRET_NAME.search(name) and len(value) >= _MIN_SHORT_SECRET
        ):
            return
        target = self.exact if long_enough else self.words
        for variant in {value, html.escape(value), html.escape(value, quote=False)}:
            target[variant] = placeholder
            self.kinds[variant] = kind or f"the value of {name}"

    def learn_source(self, source: str) -> None:
        """Add the secret-named variables a notebook cell sets (``%env``, ``os.environ``)."""
        for pattern in _ENV_IN_SOURCE:
            for m in pattern.finditer(source):
                name, value = m.group(1), m.group(2)
                if name in _HOST_NAMES:
                    self.exact[value.strip()] = "[emulator-host]"
                elif _SECRET_NAME.search(name):
                    self.add_secret(name, value)

    def learn_outputs(self, outputs: Iterable[Mapping[str, Any]]) -> None:
        """Add the values of secret-named table columns (``password``, ``api_key``) that a cell's
        outputs show: they carry no format a plugin knows, only their column's name does."""
        for out in outputs:
            data = out.get("data") or {}
            for text, is_html in (
                (out.get("text"), False),
                (data.get("text/plain"), False),
                (data.get("text/html"), True),
            ):
                if isinstance(text, list):
                    text = "".join(text)
                if isinstance(text, str) and text:
                    for column, value in column_values(_ANSI.sub("", text), html=is_html):
                        self.add_secret(column, value, kind=f"a value of the column {column!r}")

    @classmethod
    def for_environment(
        cls,
        env: Mapping[str, str] | None = None,
        *,
        roots: Iterable[tuple[Path | str, str]] = (),
        hosts: Iterable[str] = (),
    ) -> Scrubber:
        """A scrubber for this machine: secret-named variables, emulator hosts, the repo, venv and home."""
        env = os.environ if env is None else env
        exact: dict[str, str] = {}
        secrets = cls()
        for name, value in env.items():
            if name in _HOST_NAMES and value:
                exact[value] = "[emulator-host]"
            elif _SECRET_NAME.search(name):
                secrets.add_secret(name, value)
        exact.update(secrets.exact)
        for host in hosts:
            if host:
                exact[host] = "[emulator-host]"
        site = [p for p in sys.path if p.endswith("site-packages")]
        path_roots: list[tuple[Path | str, str]] = [
            *((p, "[site-packages]") for p in site),
            (sys.prefix, "[venv]"),
            *roots,
            (Path.home(), "~"),
        ]
        paths: dict[str, str] = {}
        for root, placeholder in path_roots:
            for text in {str(root).rstrip("/"), os.path.realpath(str(root)).rstrip("/")}:
                if text and text not in _PUBLIC_DIRS:
                    paths.setdefault(text, placeholder)
        return cls(exact, paths, secrets.words, secrets.kinds)

    def secrets(self, s: str, *, hosts: bool = False) -> str:
        """``s`` with every secret replaced; local paths (and emulator hosts unless ``hosts``)
        kept: for the command line's own messages, which name the user's files to the user."""
        if not s:
            return s
        for value in sorted(self.exact, key=len, reverse=True):
            if value in s and (hosts or self.exact[value] != _HOST_PLACEHOLDER):
                s = s.replace(value, self.exact[value])
        for value in sorted(self.words, key=len, reverse=True):
            if value in s:
                s = re.sub(_word(value), self.words[value], s)
        s = _redact(s)
        if _ANSI.search(s) and detect(s):  # a secret cut by colour codes: its text loses them
            s = _redact(_ANSI.sub("", s))
        return s

    def text(self, s: str) -> str:
        """``s`` with every secret and local path replaced by a placeholder."""
        if not s:
            return s
        s = self.secrets(s, hosts=True)
        for path in sorted(self.paths, key=len, reverse=True):
            if path in s:
                s = re.sub(
                    re.escape(path) + r"(?![\w.\-])", self.paths[path].replace("\\", "\\\\"), s
                )
        for pattern, repl in _PATH_PATTERNS:
            s = pattern.sub(repl, s)
        return _LOOPBACK.sub(r"\1:[port]", s)

    def obj(self, value: Any, key: str | None = None) -> Any:
        """Scrub every string inside nested dicts/lists (a notebook, its metadata, widget state), in place."""
        if key in _SKIP_KEYS:
            return value
        if isinstance(value, str):
            return value if value.startswith("IPY_MODEL_") else self.text(value)
        if isinstance(value, dict):
            for k in list(value):
                value[k] = self.obj(value[k], k)
            return value
        if isinstance(value, list):
            for i, item in enumerate(value):
                value[i] = self.obj(item, key)
            return value
        return value

    def leaks(self, text: str) -> list[str]:
        """Secrets or local paths still present in ``text`` (data: URIs excluded): empty when clean."""
        return sorted(self.leak_kinds(text))

    def leak_kinds(self, text: str) -> dict[str, str]:
        """:meth:`leaks` with the kind of each ("GitLab Token", "the value of DB_PASSWORD",
        "local path"): what an error names instead of the value itself."""
        text = _DATA_URI.sub("data:", text)
        unescaped = html.unescape(text)  # rendered HTML: a secret may show up entity-escaped
        if unescaped != text:
            text = text + "\n" + unescaped
        plain = _ANSI_SPAN.sub("", text)  # colours rendered as spans: read the text through them
        if plain != text:
            text = text + "\n" + plain
        found: dict[str, str] = {}
        for v, placeholder in self.exact.items():
            if v in text:
                found[v] = self.kinds.get(v, _EXACT_KINDS.get(placeholder, "a secret value"))
        for v in self.words:
            if re.search(_word(v), text):
                found[v] = self.kinds.get(v, "a secret value")
        for p in self.paths:
            if re.search(re.escape(p) + r"(?![\w.\-])", text):
                found[p] = "a local path"
        found.update(detect_kinds(text, guesses=False))
        for pattern, _ in _PATH_PATTERNS:
            for m in pattern.finditer(text):
                if REDACTED not in m.group(0):
                    found.setdefault(m.group(0), "a local path")
        for m in _LOOPBACK.finditer(text):
            found.setdefault(m.group(0), "a local address")
        return found


def strip_ansi(text: str) -> str:
    """``text`` without its ANSI escape sequences (colours, cursor moves)."""
    return _ANSI.sub("", text)


def _redact(s: str) -> str:
    """``s`` with every secret the plugins find replaced by the placeholder."""
    for _ in range(_PASSES):  # each pass replaces what it found: the next finds the rest
        before = s
        for value in sorted(detect(s), key=len, reverse=True):
            for variant in {value, html.escape(value), html.escape(value, quote=False)}:
                if len(variant) >= 6:
                    s = s.replace(variant, REDACTED)
                else:  # a short value only as a whole word: "abcd" in "abcdef" stays
                    s = re.sub(_word(variant), REDACTED, s)
        if s == before:
            break
    return s


def _word(value: str) -> str:
    return r"(?<![\w])" + re.escape(value) + r"(?![\w])"


_DATA_URI = re.compile(r"data:[\w/+.\-]+;base64,[A-Za-z0-9+/=\s]+")
