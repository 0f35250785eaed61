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
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REDACTED = "[redacted]"
_HOST_PLACEHOLDER = "[emulator-host]"

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

# Patterns of secrets that need no environment to be recognised.
_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----"),
        REDACTED,
    ),
    (
        re.compile(r"(?i)\b(authorization:?\s*[\"']?\s*(?:token|bearer|basic)\s+)[^\s\"'<>]+"),
        r"\1" + REDACTED,
    ),
    (
        re.compile(
            r"(?i)([?&#;](?:token|access_token|id_token|api_?key|key|sig|signature|password|secret)=)"
            r"[^&\s\"'<>#]+"
        ),
        r"\1" + REDACTED,
    ),
    (  # name = value; the name may end a longer one (aws_secret_access_key, DB_PASSWORD)
        re.compile(
            r"(?i)(?<![A-Za-z0-9])((?:[A-Za-z0-9]+_)*(?:password|passwd|secret|token|api[_-]?key|"
            r"access[_-]?key|client[_-]?secret|private[_-]?key(?:_id)?|pass|pwd)[\"']?\s*[:=]\s*"
            r"[\"']?)(?!\[redacted\])[^\s\"'&<>,;)]{6,}"
        ),
        r"\1" + REDACTED,
    ),
    (  # Azure storage / service bus connection strings
        re.compile(r"(?i)((?:AccountKey|SharedAccessKey|SharedAccessSignature)=)[^;\s\"'<>]{8,}"),
        r"\1" + REDACTED,
    ),
    (  # an AWS secret access key near its name or its access key id (40 base64 characters)
        re.compile(
            r"(?i)((?:aws|AKIA[0-9A-Z]{16}|ASIA[0-9A-Z]{16})[^\n]{0,40}?[\s:=\"',]+)"
            r"(?!\[redacted\])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])"
        ),
        r"\1" + REDACTED,
    ),
    # user:password@ in any URL (postgres://, https://, redis://, ...): the password goes
    (
        re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://[^\s:/@\"'<>]+:)(?!\[redacted\])[^\s@/\"'<>]+(@)"),
        r"\1" + REDACTED + r"\2",
    ),
    (  # Slack incoming webhooks: the path is the credential
        re.compile(
            r"https://hooks\.slack(?:-gov)?\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_\-]+"
        ),
        REDACTED,
    ),
    (re.compile(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"), REDACTED),  # Slack tokens
    (  # JSON Web Tokens: header.payload.signature, header and payload base64url of "{..."
        re.compile(r"eyJ[A-Za-z0-9_\-]{5,}\.eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]*"),
        REDACTED,
    ),
    (re.compile(r"\bya29\.[0-9A-Za-z_\-]+"), REDACTED),  # Google OAuth access tokens
    (re.compile(r"\bAIza[0-9A-Za-z_\-]{35}"), REDACTED),  # Google API keys
    (re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), REDACTED),  # AWS access key ids
    (re.compile(r"\bgh[pousr]_[A-Za-z0-9]{30,}"), REDACTED),  # GitHub tokens
    (re.compile(r"\bsk-[A-Za-z0-9_\-]{16,}"), REDACTED),  # "sk-..." API keys
    (re.compile(r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{10,}"), REDACTED),  # Stripe secret keys
    (re.compile(r"\bglpat-[0-9A-Za-z_\-]{20,}"), REDACTED),  # GitLab personal access tokens
    (re.compile(r"\bhf_[A-Za-z0-9]{30,}"), REDACTED),  # Hugging Face tokens
    (
        re.compile(r"(?<![0-9A-Za-z_])[0-9a-f]{40,}(?![0-9A-Za-z_])"),
        REDACTED,
    ),  # Jupyter tokens (48 hex)
)

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

    def add_secret(self, name: str, value: str, placeholder: str = REDACTED) -> None:
        """Redact ``value`` (of variable ``name``) as written and as HTML-escaped.

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

    def learn_source(self, source: str) -> None:
        """Add the secret-named variables a notebook cell sets (``%env``, ``os.environ``)."""
        for pattern in _ENV_IN_SOURCE:
            for m in pattern.finditer(source):
                name, value = m.group(1), m.group(2)
                if name in _HOST_NAMES:
                    self.exact[value.strip()] = "[emulator-host]"
                elif _SECRET_NAME.search(name):
                    self.add_secret(name, value)

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
        return cls(exact, paths, secrets.words)

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
        for pattern, repl in _PATTERNS:
            s = pattern.sub(repl, s)
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
        text = _DATA_URI.sub("data:", text)
        unescaped = html.unescape(text)  # rendered HTML: a secret may show up entity-escaped
        if unescaped != text:
            text = text + "\n" + unescaped
        found = [v for v in self.exact if v in text]
        found += [v for v in self.words if re.search(_word(v), text)]
        found += [p for p in self.paths if re.search(re.escape(p) + r"(?![\w.\-])", text)]
        for pattern, _ in (*_PATTERNS, *_PATH_PATTERNS):
            found += [m.group(0) for m in pattern.finditer(text) if REDACTED not in m.group(0)]
        found += [m.group(0) for m in _LOOPBACK.finditer(text)]
        return sorted(set(found))


def _word(value: str) -> str:
    return r"(?<![\w])" + re.escape(value) + r"(?![\w])"


_DATA_URI = re.compile(r"data:[\w/+.\-]+;base64,[A-Za-z0-9+/=\s]+")
