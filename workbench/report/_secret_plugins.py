"""detect-secrets plugins for the credential formats its own plugins miss.

Each class is a detect-secrets ``RegexBasedDetector`` (its plugin API: a ``secret_type`` and a
``denylist`` of compiled patterns whose one capturing group, or whole match, is the secret), so
the scrubber runs them exactly as it runs detect-secrets' built-in plugins. A format gets a
plugin here only when no built-in plugin finds it as written in a notebook; the reason is in
each docstring. The scrubber runs every pattern plugin over a whole text: a pattern stops at a
line's end where its format does (a private key block spans lines).
"""

from __future__ import annotations

import re

from detect_secrets.plugins.base import RegexBasedDetector

# A value already replaced is not found again, as written or as a rendered link writes it
# (markdown turns `user:[redacted]@` in a link's address into `user:%5Bredacted%5D@`).
_NOT_DONE = r"(?!\[redacted\]|%5Bredacted%5D)"


class PrivateKeyBlockDetector(RegexBasedDetector):
    """The whole PEM block: the built-in PrivateKeyDetector matches only its BEGIN line."""

    secret_type = "Private key block"
    denylist = [
        re.compile(
            r"-----BEGIN [A-Z ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
            r"-----END [A-Z ]*PRIVATE KEY(?: BLOCK)?-----"
        )
    ]


class AuthorizationHeaderDetector(RegexBasedDetector):
    """``Authorization: Bearer …`` / ``Basic …`` / ``token …`` as printed in a request log."""

    secret_type = "Authorization header"
    denylist = [
        re.compile(
            r"(?i)\bauthorization:?\s*[\"']?\s*(?:token|bearer|basic)\s+"
            + _NOT_DONE
            + r"([^\s\"'<>]+)"
        )
    ]


class QueryStringSecretDetector(RegexBasedDetector):
    """A credential in a URL's query or fragment (``?token=`` of a Jupyter URL, ``&sig=``)."""

    secret_type = "URL query credential"
    denylist = [
        re.compile(
            r"(?i)[?&#;](?:token|access_token|id_token|api_?key|key|sig|signature|password|secret)="
            + _NOT_DONE
            + r"([^&\s\"'<>#]+)"
        )
    ]


class UnquotedAssignmentDetector(RegexBasedDetector):
    """``name = value`` without quotes (a printed config, ``aws_secret_access_key = …``); the
    built-in KeywordDetector needs quotes outside config files. The name may end a longer one."""

    secret_type = "Unquoted secret assignment"
    denylist = [
        re.compile(
            r"(?i)(?<![A-Za-z0-9])(?:[A-Za-z0-9]+_)*(?:password|passwd|secret|token|api[_-]?key|"
            r"access[_-]?key|client[_-]?secret|private[_-]?key(?:_id)?|pass|pwd)[\"']?\s*[:=]\s*"
            r"[\"']?" + _NOT_DONE + r"([^\s\"'&<>,;)]{6,})"
        )
    ]


class AzureConnectionStringDetector(RegexBasedDetector):
    """Azure storage / service bus connection strings: the built-in plugin wants exactly 88
    characters after ``AccountKey=`` and knows no ``SharedAccessKey``/``SharedAccessSignature``."""

    secret_type = "Azure connection string key"
    denylist = [
        re.compile(
            r"(?i)(?:AccountKey|SharedAccessKey|SharedAccessSignature)="
            + _NOT_DONE
            + r"([^;\s\"'<>]{8,})"
        )
    ]


class AwsSecretNearIdDetector(RegexBasedDetector):
    """An AWS secret access key (40 base64 characters) after ``aws`` or its key ID, unquoted;
    the built-in AWSKeyDetector wants the secret quoted."""

    secret_type = "AWS secret access key"
    denylist = [
        re.compile(
            r"(?i)(?:aws|AKIA[0-9A-Z]{16}|ASIA[0-9A-Z]{16})[^\n]{0,40}?[\s:=\"',]+"
            + _NOT_DONE
            + r"([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
        )
    ]


class UrlPasswordDetector(RegexBasedDetector):
    """``scheme://user:password@`` with an empty user too (``redis://:PASS@host``): the built-in
    BasicAuthDetector needs a user name."""

    secret_type = "URL password"
    denylist = [
        re.compile(r"(?i)\b[a-z][a-z0-9+.\-]*://[^\s:/@\"'<>]*:" + _NOT_DONE + r"([^\s@/\"'<>]+)@")
    ]


class SlackWebhookDetector(RegexBasedDetector):
    """Slack webhooks, whose path is the credential: also workflows, triggers and slack-gov,
    which the built-in SlackDetector does not match."""

    secret_type = "Slack webhook"
    denylist = [
        re.compile(
            r"https://hooks\.slack(?:-gov)?\.com/(?:services|workflows|triggers)/([A-Za-z0-9/_\-]+)"
        ),
        re.compile(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"),  # tokens without the digit groups
    ]


class WholeJwtDetector(RegexBasedDetector):
    """A JSON Web Token with its signature: the built-in JwtTokenDetector's pattern ends lazily,
    so what it returns stops before the signature."""

    secret_type = "JSON Web Token (whole)"
    denylist = [re.compile(r"eyJ[A-Za-z0-9_\-]{5,}\.eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]*")]


class GoogleCredentialDetector(RegexBasedDetector):
    """Google API keys (``AIza``), OAuth access tokens (``ya29.``) and OAuth client secrets
    (``GOCSPX-``): detect-secrets has no Google plugin."""

    secret_type = "Google credential"
    denylist = [
        re.compile(r"\bAIza[0-9A-Za-z_\-]{35}"),
        re.compile(r"\bya29\.[0-9A-Za-z_\-]+"),
        re.compile(r"\bGOCSPX-[0-9A-Za-z_\-]{20,}"),
    ]


class PackageRegistryTokenDetector(RegexBasedDetector):
    """npm access tokens (``npm_`` + 36) anywhere, not only on an ``.npmrc`` ``_authToken``
    line (the built-in NpmDetector), and PyPI tokens whatever their macaroon's location
    (the built-in PypiTokenDetector knows two)."""

    secret_type = "Package registry token"
    denylist = [
        re.compile(r"\bnpm_[A-Za-z0-9]{36}(?![A-Za-z0-9])"),
        re.compile(r"\bpypi-[A-Za-z0-9_\-]{50,}"),
    ]


class ServiceTokenDetector(RegexBasedDetector):
    """Tokens with a fixed prefix that detect-secrets lacks or matches too narrowly: GitHub
    fine-grained tokens (``github_pat_``), classic ones longer or shorter than 36, ``sk-`` API
    keys without OpenAI's old marker (``sk-proj-…``), Stripe test and restricted keys (the
    built-in plugin: live secret keys of 24 only), Hugging Face tokens."""

    secret_type = "Service token"
    denylist = [
        re.compile(r"\bgithub_pat_[A-Za-z0-9_]{22,}"),
        re.compile(r"\bgh[pousr]_[A-Za-z0-9]{30,}"),
        re.compile(r"\bsk-[A-Za-z0-9_\-]{16,}"),
        re.compile(r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{10,}"),
        re.compile(r"\bhf_[A-Za-z0-9]{30,}"),
    ]


class JupyterTokenDetector(RegexBasedDetector):
    """Long unquoted hex runs (a Jupyter server's 48-hex token in a URL or a log line); the
    built-in HexHighEntropyString looks at quoted strings only."""

    secret_type = "Hex token"
    denylist = [re.compile(r"(?<![0-9A-Za-z_])[0-9a-f]{40,}(?![0-9A-Za-z_])")]


class NetrcPasswordDetector(RegexBasedDetector):
    """A ``.netrc`` entry's password (``machine host login user password value``, on one line or
    several): no ``=`` or ``:``, so neither the keyword plugin nor the assignment one sees it.
    The login is required, so prose ("the default password is …") is not cut up."""

    secret_type = ".netrc password"
    denylist = [
        re.compile(
            r"(?i)\b(?:machine[ \t]+\S+|default)\s+login[ \t]+\S+(?:\s+account[ \t]+\S+)?"
            r"\s+password[ \t]+" + _NOT_DONE + r"([^\s\"'<>]+)"
        )
    ]


# Vendor tokens with a fixed prefix that detect-secrets 1.5 has no plugin for. Each pattern is
# the token's documented shape (prefix, alphabet, length), as gitleaks' rules state them, and
# matches the WHOLE token: a scrubber that removes only a prefix leaves the credential.
class ShopifyTokenDetector(RegexBasedDetector):
    """Shopify access, custom-app, private-app tokens and shared secrets: ``shpat_`` + 32 hex."""

    secret_type = "Shopify token"
    denylist = [re.compile(r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32,}")]


class VaultTokenDetector(RegexBasedDetector):
    """HashiCorp Vault service, batch and recovery tokens (``hvs.``, ``hvb.``, ``hvr.``)."""

    secret_type = "Vault token"
    denylist = [re.compile(r"\bhv[sbr]\.[A-Za-z0-9_\-]{24,}")]


class DopplerTokenDetector(RegexBasedDetector):
    """Doppler personal, service, CLI, service-account, SCIM and audit tokens (``dp.pt.`` …; a
    service token names its config: ``dp.st.prd.…``)."""

    secret_type = "Doppler token"
    denylist = [re.compile(r"\bdp\.(?:pt|st|ct|sa|scim|audit)\.[A-Za-z0-9._\-]{40,}")]


class AiServiceKeyDetector(RegexBasedDetector):
    """Groq (``gsk_`` + 52) and Replicate (``r8_`` + 37) API keys."""

    secret_type = "AI service API key"
    denylist = [
        re.compile(r"\bgsk_[A-Za-z0-9]{48,}"),
        re.compile(r"\br8_[A-Za-z0-9]{37,}"),
    ]


class DeveloperPlatformTokenDetector(RegexBasedDetector):
    """Linear (``lin_api_`` + 40), DigitalOcean (``dop_v1_``/``doo_v1_``/``dor_v1_`` + 64 hex),
    Databricks (``dapi`` + 32 hex, an optional ``-N``), Postman (``PMAK-``), Grafana (``glsa_``,
    ``glc_``), Pulumi (``pul-`` + 40 hex), Prefect (``pnu_`` + 36) and Sentry (``sntrys_``)."""

    secret_type = "Developer platform token"
    denylist = [
        re.compile(r"\blin_api_[A-Za-z0-9]{40,}"),
        re.compile(r"\bdo[opr]_v1_[a-f0-9]{64}"),
        re.compile(r"\bdapi[a-f0-9]{32}(?:-\d+)?(?![A-Za-z0-9])"),
        re.compile(r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}"),
        re.compile(r"\bglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}"),
        re.compile(r"\bglc_[A-Za-z0-9+/]{32,}={0,2}"),
        re.compile(r"\bpul-[a-f0-9]{40}"),
        re.compile(r"\bpnu_[A-Za-z0-9]{36}"),
        re.compile(r"\bsntrys_[A-Za-z0-9+/=_\-]{40,}"),
    ]


class MailgunKeyDetector(RegexBasedDetector):
    """Mailgun private API keys (``key-`` + 32 hex) and webhook signing keys (``pubkey-``)."""

    secret_type = "Mailgun key"
    denylist = [re.compile(r"\b(?:pub)?key-[a-f0-9]{32}(?![A-Za-z0-9])")]


class AtlassianTokenDetector(RegexBasedDetector):
    """Atlassian API tokens (``ATATT3`` + 186 characters) and Connect/Forge ones (``ATCTT3``)."""

    secret_type = "Atlassian API token"
    denylist = [re.compile(r"\bAT[AC]TT3[A-Za-z0-9_\-=]{60,}")]


class StripeWebhookSecretDetector(RegexBasedDetector):
    """Stripe webhook signing secrets (``whsec_``): the built-in StripeDetector knows API keys."""

    secret_type = "Stripe webhook secret"
    denylist = [re.compile(r"\bwhsec_[A-Za-z0-9+/=]{24,}")]
