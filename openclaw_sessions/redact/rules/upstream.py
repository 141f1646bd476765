"""Upstream OpenClaw's default redaction families, in its order: its key tables, its assignment
families and form-body rule, key blocks (PEM) and its whole-text families.

The facts — prefixes, lengths, alphabets, key names — come from upstream's
``src/logging/redact-patterns.ts`` (its families keep their names and order here); the regexes
are ours, written in ``syntax``'s terms. The package (``rules``) puts the other families after
these.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from openclaw_sessions.redact.syntax import (
    ASCII,
    BLOCK,
    NOCASE,
    OPEN,
    TOKEN_CLS,
    Anchor,
    Field,
    Hit,
    Rule,
    alt,
    at_least,
    caseless,
    compiled,
    plain,
    prefix,
    spellings,
)

# --- key tables (upstream's, spelled out) -------------------------------------------------------
_K_PAY_Q = spellings(
    "card[-_]?number", "card[-_]?cvc", "card[-_]?cvv", "cvc", "cvv", "security[-_]?code",
    "payment[-_]?credential", "shared[-_]?payment[-_]?token",
)  # fmt: skip
_K_AWS = spellings("aws[-_]?secret[-_]?access[-_]?key") + ("awsSecretAccessKey", "SecretAccessKey")
_K_AUTH_HDR = ("authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key",
               "x-auth-token")  # fmt: skip
_K_ENV = spellings(
    "KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CARD[-_]?NUMBER", "CARD[-_]?CVC",
    "CARD[-_]?CVV", "CVC", "CVV", "SECURITY[-_]?CODE", "PAYMENT[-_]?CREDENTIAL",
    "SHARED[-_]?PAYMENT[-_]?TOKEN",
)  # fmt: skip
_K_JSON = ("apiKey", "api_key", "apiToken", "api_token", "bearerToken", "bearer_token", "token",
        "secret", "password", "passwd", "credential", "accessToken", "access_token",
        "refreshToken", "refresh_token", "idToken", "id_token", "authToken", "auth_token",
        "clientSecret", "client_secret", "privateKey", "private_key", "secret_value",
        "raw_secret", "secret_input", "key_material") + _K_AWS + _K_AUTH_HDR  # fmt: skip
_K_PAY_JSON = ("cardNumber", "card_number", "cardCvc", "card_cvc", "cardCvv", "card_cvv", "cvc",
            "cvv", "securityCode", "security_code", "paymentCredential", "payment_credential",
            "sharedPaymentToken", "shared_payment_token")  # fmt: skip
_K_QUOTED = spellings(
    "api[-_]key", "access[-_]token", "refresh[-_]token", "id[-_]token", "auth[-_]token",
    "client[-_]secret", "app[-_]secret", "private[-_]key", "secret[-_]value",
    "raw[-_]secret", "secret[-_]input", "key[-_]material",
) + ("authToken", "clientSecret", "appSecret", "credential", "authorization")  # fmt: skip
_K_CLI = spellings(
    "api[-_]?key", "hook[-_]?token", "access[-_]?token", "refresh[-_]?token",
    "id[-_]?token", "private[-_]?key", "client[-_]?secret",
) + ("token", "secret", "password", "passwd", "credential") + _K_AWS + _K_PAY_Q  # fmt: skip
_K_STANDALONE = ("access_token", "refresh_token", "id_token", "authorization", "jwt", "token",
              "secret", "password", "pass", "passwd", "credential") + spellings(
              "auth[-_]?token", "hook[-_]?token", "api[-_]?key", "client[-_]?secret",
              "app[-_]?secret", "private[-_]?key") + _K_PAY_Q  # fmt: skip
_K_CONFIG_Q = spellings(
    "access[-_]?token", "refresh[-_]?token", "id[-_]?token", "auth[-_]?token",
    "hook[-_]?token", "api[-_]?key", "api[-_]?secret", "secret[-_]?key", "key[-_]?material",
) + ("authorization", "jwt", "token", "secret", "password", "passphrase", "pass",
     "passwd") + _K_PAY_Q  # fmt: skip
_K_CONFIG_ALL = _K_CONFIG_Q + spellings(
    "client[-_]?secret", "app[-_]?secret", "private[-_]?key",
) + ("credential",)  # fmt: skip
_K_CONFIG_DIRECT = ("access-token", "refresh-token", "id-token", "auth-token", "hook-token",
                    "passphrase") + spellings("api[-_]?key", "api[-_]?secret", "secret[-_]?key",
                    "key[-_]?material")  # fmt: skip
_K_PASSWORDISH = ("password", "passphrase", "pass", "passwd")
_K_FORM = spellings(
    "access[-_]?token", "auth[-_]?token", "hook[-_]?token", "refresh[-_]?token",
    "id[-_]?token", "api[-_]?key", "client[-_]?secret", "app[-_]?secret",
    "private[-_]?key", "x[-_]?amz[-_]?signature", "x[-_]?amz[-_]?security[-_]?token",
) + ("apikey", "credential", "authorization", "token", "key", "secret", "password", "pass",
     "passwd", "auth", "jwt", "session", "code", "signature", "sig",
     ) + _K_AWS + _K_PAY_Q  # fmt: skip

# --- assignment families, evaluated at their separator --------------------------------------------
# Each is upstream's "BOUNDARY KEY GAP SEP VALUE" regex cut at the separator: ``gap`` and ``edge``
# are read right to left in the reversed text (``edge`` is what must precede the key), ``value``
# left to right after the separator. The two halves meet at one character, so together they
# accept exactly what the one regex accepts.
_SERQ = r"(?:\\{1,64}[\"']|[\"'])?"  # a quote, possibly _K_JSON-escaped (up to 6 levels)
_SERQ_R = r"(?:[\"']\\{1,64}|[\"'])?"
_OPT_WS = r"(?:[ \t]*\r?\n[ \t]+|[ \t]*\\{1,64}r\\{1,64}n[ \t]+|[ \t]*\\{1,64}n[ \t]+|[ \t]*)"
_REQ_WS = r"(?:[ \t]*\r?\n[ \t]+|[ \t]*\\{1,64}r\\{1,64}n[ \t]+|[ \t]*\\{1,64}n[ \t]+|[ \t]+)"
_LEG_WS = r"(?:[ \t\r\n]*|[ \t]*\\{1,64}r\\{1,64}n[ \t]*|[ \t]*\\{1,64}n[ \t]*)"
_SCHEME = r"[A-Za-z0-9!#$%&'*+.^_`|~-]+"
_CRED = r"([^§\\\"',;&#?<>)}\]]+)"
_NOT_LEGACY = rf"(?!(?:Bearer|Basic|Bot){_REQ_WS})"
# The value ends at a line end even when the next line is indented: upstream leaves the value
# of a folded header unmasked, which leaked it in transcripts (YAML, logs, indented text).
_OPAQUE_END = rf"[ \t]*(?={_SERQ}(?:\Z|[,;)}}\]]|\r?\n))"
_HDR_EDGE = r"(?=\Z|[^A-Za-z0-9_-]|[rn]\\)"
_LOG_EDGE = r"(?=\Z|[^A-Za-z0-9_?&-]|[rn]\\)"
_QUOTED = r"([\"'`])((?:(?!\1)[^\r\n])+)\1"


UPSTREAM_FIELDS: tuple[Field, ...] = (
    # KEY=value in the environment style: an upper-case name ending in KEY, TOKEN, SECRET…
    Field("env", "=:", _K_ENV, "[§]*", r"[A-Z0-9_]*(?![A-Za-z0-9_])",
           r"[§]*([\"']?)([^§\"'\\]+)\1", ASCII),
    Field("env-escaped", "=:", _K_ENV, "[§]*", r"[A-Z0-9_]*(?![A-Za-z0-9_])",
           r"[§]*\\+([\"'])([^§\"'\\]+)\\+\1", ASCII),
    Field("json", ":", _K_JSON, '[§]*"', '(?=")', r'[§]*"([^"]+)"'),
    Field("json-payment", ":", _K_PAY_JSON, '[§]*"', '(?=")', r'[§]*"([^"]+)"'),
    Field("quoted-field", ":=", _K_QUOTED, "[§]*[\"']?", r"(?=[\"']?(?:\Z|[§,{]))",
           r"[§]*([\"'])([^\"'\r\n]+)\1"),
    Field("quoted-auth-field", ":=", _K_AUTH_HDR, "[§]*[\"']?", r"(?=[\"']?(?:\Z|[§,{]))",
           r"[§]*([\"'])([^\"'\r\n]+)\1"),
    Field("authorization", ":=", ("authorization",), "[ \t]*" + _SERQ_R, "",
           rf"{_LEG_WS}{_SERQ}(?:Bearer|Basic|Bot){_REQ_WS}{_CRED}"),
    Field("proxy-authorization-opaque", ":=", ("proxy-authorization",), "[ \t]*" + _SERQ_R,
           _HDR_EDGE, rf"{_OPT_WS}{_SERQ}{_CRED}{_OPAQUE_END}"),
    Field("proxy-authorization", ":=", ("proxy-authorization",), "[ \t]*" + _SERQ_R, _HDR_EDGE,
           rf"{_OPT_WS}{_SERQ}{_SCHEME}{_REQ_WS}{_CRED}"),
    # A whole value on its line is the credential; only otherwise is a first word a scheme
    # (else "Authorization: <token>\n <indented text>" masked the text and kept the token).
    Field("authorization-opaque", ":=", ("authorization",), "[ \t]*" + _SERQ_R, _HDR_EDGE,
           rf"{_OPT_WS}{_SERQ}{_NOT_LEGACY}{_CRED}{_OPAQUE_END}"),
    Field("authorization-scheme", ":=", ("authorization",), "[ \t]*" + _SERQ_R, _HDR_EDGE,
           rf"{_OPT_WS}{_SERQ}{_NOT_LEGACY}{_SCHEME}{_REQ_WS}{_CRED}"),
    Field("api-key-header", ":=", ("x-goog-api-key", "api-key", "apikey", "x-api-token",
           "x-access-token"), "[ \t]*" + _SERQ_R, _LOG_EDGE,
           rf"{_OPT_WS}{_SERQ}([^§\\\"',;]+)"),
    Field("gateway-header", ":=", ("X-OpenClaw-Token", "x-pomerium-jwt-assertion", "X-Api-Key",
           "X-Auth-Token"), "[§]*", _LOG_EDGE, r"[ \t]*([^§\"',;]+)"),  # (a line end ends it)
    # Not upstream's: a raw Cookie/Set-Cookie header line keeps no cookie value.
    Field("cookie-header", ":", ("cookie", "set-cookie"), "[ \t]*", r"(?=\Z|[^A-Za-z0-9_-])",
           r"[ \t]*([^\r\n\"'\\]{0,4095}[^§\"'\\])"),
    Field("assignment-quoted", "=", _K_STANDALONE, "", r"(?=\Z|[§,;({\[])", _QUOTED),
    Field("assignment", "=", _K_STANDALONE, "", r"(?=\Z|[§,;({\[])",
           r"([\"'`]?[^§&#\"'`<>]+)"),
    # Upstream's config patterns are case-sensitive; "[ \t]" (theirs: any \s) keeps a line's
    # "password:" from swallowing the next line's first word.
    Field("config-quoted", ":=", _K_CONFIG_Q, "[ \t]*", r"(?=\Z|[§,{])", "[ \t]*" + _QUOTED, ASCII),
    Field("config-password-quoted", ":=", _K_PASSWORDISH, "[ \t]*",
           r"[-_][a-z0-9._-]{0,79}[a-z0-9](?=\Z|[§,{])", "[ \t]*" + _QUOTED, ASCII),
    Field("config-dotted-quoted", ":=", _K_CONFIG_ALL, "[ \t]*",
           r"\.[a-z0-9_.-]{1,80}(?=\Z|[§,{])", "[ \t]*" + _QUOTED, ASCII),
    Field("config-direct", "=", _K_CONFIG_DIRECT, "", r"(?=\Z|[§,{])", r"([^§#\"'`<>]+)", ASCII),
    Field("aws-secret-field", ":=", _K_AWS, "[§]*[\"']?", r"(?=[\"']?(?:\Z|[§,{]))",
           r"[§]*([\"']?)([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])\1"),
)  # fmt: skip

# Upstream's form-body rule: the first pair of ``token=abc&next=1``; an "&" starts the search.
FORM = compiled(rf"{alt(_K_FORM)}=([^&§]+)(?=&[A-Za-z_][A-Za-z0-9_.-]*=)", NOCASE)
RUN_R = compiled(r"[^&§]*", ASCII)  # reversed: back from an "&" over its pair
COMMA = re.compile(r"[,;]")
SPACE = frozenset(" \t\n\r\f\v\u00a0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff") | frozenset(
    chr(c) for c in range(0x2000, 0x200B)
)


# --- whole-text families ------------------------------------------------------------------------
# Key blocks: every PEM kind (RSA, EC, DSA, OPENSSH, ENCRYPTED, PGP … BLOCK, SSH2's "---- "
# style). Upstream's lazy BEGIN…END; a BEGIN with no END (a block pasted in half) is masked to
# the end of its body: base64 lines, armor headers, blank lines, escaped "\n"s.
_PEM_SRC = r"-{4,5} ?BEGIN [A-Z0-9 _-]{0,60}?PRIVATE KEY(?: BLOCK)? ?-{4,5}"
PEM_BEGIN = compiled(_PEM_SRC, NOCASE)
PEM_END = compiled(r"-{4,5} ?END [A-Z0-9 _-]{0,60}?PRIVATE KEY(?: BLOCK)? ?-{4,5}", NOCASE)
_PEM_BODY = compiled(
    r"(?:(?:\r?\n|\\r\\n|\\n)[ \t]*(?:(?:[A-Za-z0-9+/=]{16,100}|=[A-Za-z0-9+/]{4}"
    r"|[A-Za-z0-9+/]{1,15}={0,2})(?=[ \t]*(?:\r?\n|\\r|\\n|\Z))"  # whole lines; no padding needed
    r"|(?:Proc-Type|DEK-Info|Version|Comment|Hash|Charset): ?[^\r\n\\]*)?)+",
    ASCII,
)


def pem_hits(text: str) -> Iterator[Hit]:
    """BEGIN…END blocks (found in linear time: with no END after a BEGIN there is none after
    any later BEGIN either), then blocks whose END is missing."""
    pos, ends = 0, True
    while b := PEM_BEGIN.search(text, pos):
        if ends and (e := PEM_END.search(text, b.end())):
            yield b.start(), e.end(), BLOCK
            pos = e.end()
            continue
        ends = False
        body = _PEM_BODY.match(text, b.end())
        end = body.end() if body else b.end()
        while end > b.end() and (text[end - 1] in " \t\r\n" or text.endswith("\\n", 0, end)):
            end -= 2 if text[end - 1] == "n" and text[end - 2] == "\\" else 1
        if end > b.end():
            yield b.start(), end, OPEN
        pos = max(end, b.end())


_B64 = r"(?:\A|(?<=[^A-Za-z0-9]))"
B64_RUN_R = compiled(r"[A-Za-z0-9+/=]*", ASCII)
_WORD_START = r"(?:\A|(?<=[^A-Za-z0-9_]))"
_TELEGRAM_GATE = (Anchor("r", ":", f"(?=[0-9]{{6}})(?<={TOKEN_CLS}{{20}}:)"),)
CLI_GATE = prefix("-", "-", then="(?<=[A-Za-z]-)", short=True)  # "--" and a letter
URL_GATE = (Anchor("r", ":", "(?=[^/§:@]*//)"),)  # the userinfo colon
# Upstream matches every vendor prefix case-insensitively; the prefixes below that carry no
# separator (AIza, AKIA, ASIA, AKID, LTAI, gAAAA, dapi, eyJ, ATBB, ATATT, ATCTT3) are matched in
# the case their issuers use: a case-free anchor for them would cost ``re`` a pass over every
# letter "a". Real tokens are issued in that case, so only made-up variants go unmasked.
CASED = "(?-i:{})"


def rule(name: str, src: str, anchors: tuple[Anchor, ...], b64: bool = False) -> Rule:
    return Rule(name, src, anchors, b64, finder=pem_hits if name == "pem" else None)


# In upstream's order; the token is the last non-empty group.
UPSTREAM_RULES = tuple(rule(*row) for row in (
    ("cli", rf"--{alt(_K_CLI)}=([^§\"']+)", CLI_GATE),
    ("cli-spaced", rf"--{alt(_K_CLI)}[§]+(?!(?:or|and)(?![A-Za-z0-9_])(?=[§]+--))"
     r"([\"']?)([^§\"']+)\1", CLI_GATE),
    ("bearer", r"(?<![A-Za-z0-9_])Bearer[§]+([-A-Za-z0-9._~+/=]{18,})(?![-A-Za-z0-9._~+/=])",
     tuple(a for b in "bB" for a in plain(b,
     f"(?=[eE][aA][rR][eE][rR][§]+[-A-Za-z0-9._~+/=]{{18}})"
                                         f"(?<![A-Za-z0-9_]{b})"))),
    ("url-password", r"(?<![A-Za-z0-9_])(?:https?|wss?|ftp)://[^/§:@]*:([^/§@]+)@", URL_GATE),
    ("db-password",
     r"(?<![A-Za-z0-9_])(?:postgres(?:ql)?|mysql|mongodb(?:\+srv)?|rediss?|amqps?)://"
     r"[^:§/@]*:([^@§]+)@", URL_GATE),
    ("pem", _PEM_SRC, prefix("-", "private key", "private key block", "private key ", short=True)),
    ("openai", r"(?<![A-Za-z0-9_])(sk-[A-Za-z0-9_-]{8,})(?![A-Za-z0-9_])",
     prefix("-", "sk", bound=True, then=at_least(8, "-"))),
    ("github", r"(gh[pousr]_[A-Za-z0-9]{10,})", prefix("_", "ghp", "gho", "ghu", "ghs", "ghr")),
    ("github-pat", r"(github_pat_[A-Za-z0-9_]{10,})", prefix("_", "github_pat")),
    ("gitlab-pat", r"(glpat-[A-Za-z0-9._=\-]{20,})", prefix("-", "glpat")),
    ("gitlab-oauth", r"(gloas-(?:[A-Fa-f0-9]{65,}|[A-Za-z0-9_-]{64}|[A-Fa-f0-9]{32,}))",
     prefix("-", "gloas")),
    ("gitlab-deploy", r"(gldt-[A-Za-z0-9_-]{20,})", prefix("-", "gldt")),
    ("gitlab-cibuild", r"(glcbt-[A-Za-z0-9]{1,5}_[A-Za-z0-9_-]{20,})", prefix("-", "glcbt")),
    ("gitlab-trigger", r"(glptt-[A-Za-z0-9_-]{40,})", prefix("-", "glptt")),
    ("gitlab-feed", r"(glft-(?:[A-Za-z0-9_-]{20,}|[a-h0-9]+-[0-9]+_))",
     prefix("-", "glft", short=True)),
    ("gitlab-mail", r"(glimt-[A-Za-z0-9_-]{25,})", prefix("-", "glimt")),
    ("gitlab-agent", r"(glagent-[A-Za-z0-9_-]{50,})", prefix("-", "glagent")),
    ("gitlab-workspace", r"(glwt-[A-Za-z0-9_-]{20,})", prefix("-", "glwt")),
    ("gitlab-scim", r"(glsoat-[A-Za-z0-9_-]{20,})", prefix("-", "glsoat")),
    ("gitlab-flags", r"(glffct-[A-Za-z0-9_-]{20,})", prefix("-", "glffct")),
    ("gitlab-runner", r"(glrt-[A-Za-z0-9._-]{20,})", prefix("-", "glrt")),
    ("gitlab-runner-routed", r"(glrtr?-[A-Za-z0-9_-]{27,300}\.[0-9a-z]{2}\.[0-9a-z]{9})",
     prefix("-", "glrt", "glrtr")),
    ("gitlab-runner-reg", r"(GR1348941[A-Za-z0-9_-]{20,})", plain("1",
     "(?<=[gG][rR]1)(?=348941)")),
    ("gitlab-session", r"(_gitlab_session=[A-Za-z0-9%._-]{20,})", prefix("_", "_gitlab")),
    ("slack", r"(xox[baprseo]-[A-Za-z0-9-]{10,}|xoxe\.xox[bp]-[A-Za-z0-9-]{10,})",
     prefix("-", "xoxb", "xoxa", "xoxp", "xoxr", "xoxs", "xoxe", "xoxo") + prefix(".", "xoxe")),
    ("slack-app", r"(xapp-[A-Za-z0-9-]{10,})", prefix("-", "xapp")),
    ("slack-webhook", r"(https?://hooks\.slack\.com/(?:services|workflows|triggers)/"
     r"[A-Za-z0-9+/_-]{20,})",
     prefix(".", "hooks", then=r"(?<=\." + caseless("kcals") + r"\.)")),
    ("discord-webhook",
     r"(https://discord(?:app)?\.com/api/webhooks/[0-9]{17,20}/[A-Za-z0-9_-]{60,})",
     prefix(".", "discord", "discordapp")),
    ("discord-bot", r"discord[\s\S]{0,40}?(?<![A-Za-z0-9_])([A-Za-z0-9_-]{24}\.[A-Za-z0-9_-]{6}\."
     r"[A-Za-z0-9_-]{27})(?![A-Za-z0-9_])",
     (Anchor("r", ".", rf"(?<=\.{TOKEN_CLS}{{6}}\.)(?={TOKEN_CLS}{{24}})"),)),
    ("groq", r"(gsk_[A-Za-z0-9_-]{10,})", prefix("_", "gsk")),
    ("google", CASED.format(r"(AIza[0-9A-Za-z\-_]{20,})"), plain("A", f"(?=Iza{TOKEN_CLS}{{20}})")),
    ("google-oauth", r"(ya29\.[0-9A-Za-z_\-./+=]{10,})", prefix(".", "ya29")),
    ("google-refresh", r"(1//0[0-9A-Za-z_\-./+=]{10,})", plain("1", "(?=//0)")),
    ("jwt", CASED.format(r"(eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})"),
     (Anchor("r", ".", f"(?<={TOKEN_CLS}\\.)(?<={TOKEN_CLS}{{10}}\\.)"
                       f"(?={TOKEN_CLS}{{10}}{TOKEN_CLS}*Jye)"),)),
    ("perplexity", r"(pplx-[A-Za-z0-9_-]{10,})", prefix("-", "pplx")),
    ("fal", r"(fal_[A-Za-z0-9_-]{10,})", prefix("_", "fal")),
    ("firecrawl", _WORD_START + r"(fc-[A-Za-z0-9]{10,})", prefix("-", "fc", bound=True)),
    ("browserbase", r"(bb_live_[A-Za-z0-9_-]{10,})", prefix("_", "bb_live")),
    ("fernet", _B64 + CASED.format(r"(gAAAA[A-Za-z0-9_=-]{20,})"), plain("A", "(?<=gA)(?=AAA)"),
     True),
    ("stripe", r"(sk_live_[A-Za-z0-9]{10,})", prefix("_", "sk_live")),
    ("stripe-test", r"(sk_test_[A-Za-z0-9]{10,})", prefix("_", "sk_test")),
    ("stripe-restricted", r"(rk_live_[A-Za-z0-9]{10,})", prefix("_", "rk_live")),
    ("sendgrid", r"(SG\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})",
     prefix(".", "sg", then=at_least(10, "."))),
    ("npm", r"(npm_[A-Za-z0-9]{10,})", prefix("_", "npm")),
    ("pypi", r"(pypi-[A-Za-z0-9_-]{10,})", prefix("-", "pypi")),
    ("digitalocean", r"(do[opr]_v1_[A-Za-z0-9]{10,})", prefix("_", "dop_v1", "doo_v1", "dor_v1")),
    ("doppler", r"(dp\.(?:ct|pt|sa|scim|audit)\.[A-Za-z0-9]{40,44})", prefix(".", "dp")),
    ("doppler-service", r"(dp\.st\.[A-Za-z0-9]{40,44})", prefix(".", "dp")),
    ("doppler-service-named", r"(dp\.st\.[a-z0-9_-]{2,35}\.[A-Za-z0-9]{40,44})", prefix(".",
     "dp")),
    ("docker", r"(dckr_(?:pat|oat)_[A-Za-z0-9_-]{27,32})", prefix("_", "dckr_pat", "dckr_oat")),
    ("buildkite", r"(bkua_[a-z0-9]{40})", prefix("_", "bkua")),
    ("circleci", r"(CCIPAT_[A-Za-z0-9]{22}_[A-Fa-f0-9]{40})", prefix("_", "ccipat")),
    ("supabase", r"(sbp_[a-z0-9]{40})", prefix("_", "sbp")),
    ("databricks", _B64 + CASED.format(r"(dapi[0-9a-f]{32}(?:-[0-9])?)"),
     plain("p", "(?<=dap)(?=i[0-9a-f]{32})"), True),
    ("datadog", r"(dd[pw]_[A-Za-z0-9]{36})", prefix("_", "ddp", "ddw")),
    ("grafana-sa", r"(glsa_[A-Za-z0-9_]{41})", prefix("_", "glsa")),
    ("grafana-cloud", r"(glc_eyJ[A-Za-z0-9+/=]{60,160})", prefix("_", "glc")),
    ("netlify", r"(nfp_[A-Za-z0-9_]{36})", prefix("_", "nfp")),
    ("contentful", r"(CFPAT-[A-Za-z0-9_\-]{40,})", prefix("-", "cfpat")),
    ("atlassian-cloud", _B64 + CASED.format(r"(ATCTT3xFfG[A-Za-z0-9+/=_-]+=[A-Za-z0-9]{8})"),
     plain("A", "(?=TCTT3xFfG)"), True),
    ("atlassian", _B64 + CASED.format(r"(ATATT[A-Za-z0-9+/=_-]+=[A-Za-z0-9]{8})"),
     plain("A", "(?=TATT)"), True),
    ("bitbucket", _B64 + CASED.format(r"(ATBB[A-Za-z0-9_=.-]{16,})"), plain("A", "(?=TBB)"),
     True),
    ("bitbucket-dc", r"(BBDC-[A-Za-z0-9+/@_-]{40,50})", prefix("-", "bbdc")),
    ("heroku", r"(HRKU-AA[A-Za-z0-9_-]{20,})", prefix("-", "hrku")),
    ("hubspot", r"(pat-(?:eu|na)1-[A-Za-z0-9]{8}-[A-Za-z0-9]{4}-[A-Za-z0-9]{4}-[A-Za-z0-9]{4}-"
     r"[A-Za-z0-9]{12})", prefix("-", "pat-eu1", "pat-na1")),
    ("apify", r"(apify_api_[A-Za-z0-9\-]{20,})", prefix("_", "apify_api")),
    ("fly", r"(FlyV1 fm[0-9]+_[A-Za-z0-9+/=,_-]{100,})",
     (Anchor("r", "_", "(?=[0-9]+[mM][fF] 1[vV][yY][lL][fF])"),)),
    ("fastly-io", r"(fio-u-[A-Za-z0-9_-]{40,})", prefix("-", "fio-u")),
    ("agentmail", _WORD_START + r"(am_[A-Za-z0-9_-]{10,})", prefix("_", "am", bound=True)),
    ("elevenlabs", _WORD_START + r"(sk_[A-Za-z0-9_]{10,})", prefix("_", "sk", bound=True)),
    ("tavily", r"(tvly-[A-Za-z0-9]{10,})", prefix("-", "tvly")),
    ("exa", r"(exa_[A-Za-z0-9]{10,})", prefix("_", "exa")),
    ("matrix", r"(syt_[A-Za-z0-9]{10,})", prefix("_", "syt")),
    ("retaindb", r"(retaindb_[A-Za-z0-9]{10,})", prefix("_", "retaindb")),
    ("hsk", r"(hsk-[A-Za-z0-9]{10,})", prefix("-", "hsk")),
    ("mem0", r"(mem0_[A-Za-z0-9]{10,})", prefix("_", "mem0")),
    ("brv", r"(brv_[A-Za-z0-9]{10,})", prefix("_", "brv")),
    ("xai", r"(xai-[A-Za-z0-9]{30,})", prefix("-", "xai", then=at_least(30, "-", "[A-Za-z0-9]"))),
    ("fireworks", _WORD_START + r"(fw-[A-Za-z0-9]{30,})", prefix("-", "fw", bound=True)),
    ("fireworks-2", _WORD_START + r"(fw_[A-Za-z0-9]{30,})", prefix("_", "fw", bound=True)),
    ("fpk", _WORD_START + r"(fpk_[A-Za-z0-9]{30,})", prefix("_", "fpk", bound=True)),
    ("aws-access-key", _B64 + CASED.format(r"((?:A3T[A-Z0-9]|A[KS]IA|ABIA|ACCA)[A-Z0-9]{16})"),
     plain("A", "(?=(?:3T[A-Z0-9]|[KS]IA|BIA|CCA)[A-Za-z0-9]{16})"), True),
    ("tencent", CASED.format(r"(AKID[A-Za-z0-9]{10,})"), plain("A", "(?=KID[A-Za-z0-9]{10})")),
    ("alibaba", CASED.format(r"(LTAI[A-Za-z0-9]{10,})"), plain("A",
     "(?<=LTA)(?=I[A-Za-z0-9]{10})")),
    ("huggingface", r"(hf_[A-Za-z0-9]{10,})", prefix("_", "hf")),
    ("huggingface-org", r"(api_org_[A-Za-z0-9]{20,})", prefix("_", "api_org")),
    ("replicate", r"(r8_[A-Za-z0-9]{10,})", prefix("_", "r8")),
    ("telegram-url", r"(?<![A-Za-z0-9_])bot([0-9]{6,}:[A-Za-z0-9_-]{20,})(?![A-Za-z0-9_])",
     _TELEGRAM_GATE),
    ("telegram", r"(?<![A-Za-z0-9_])([0-9]{6,}:[A-Za-z0-9_-]{20,})(?![A-Za-z0-9_])",
     _TELEGRAM_GATE),
))  # fmt: skip
