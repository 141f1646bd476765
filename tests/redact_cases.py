"""What the redaction tests share: one planted secret per family (CASES), fragments to build
hostile texts from (FRAGMENTS), the contexts shapes are pasted in, and how to tell a leak. Seeded:
the same texts on every run; no real or real-looking secret is stored in the repository."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from helpers import Session, run_cli, write_sessions_json

RNG = random.Random(20240611)
UP, LOW, DIG = "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz", "0123456789"
ALNUM, HEX = UP + LOW + DIG, "0123456789abcdef"
URLSAFE = ALNUM + "_-"


def r(alphabet: str, n: int) -> str:
    return "".join(RNG.choice(alphabet) for _ in range(n))


def mask(token: str) -> str:
    return "***" if len(token) < 18 else f"{token[:6]}…{token[-4:]}"


# --- one planted secret per family: (family, text, secret that must not survive) -----------------
def _cases() -> list[tuple[str, str, str]]:
    c: list[tuple[str, str, str]] = []

    def add(name: str, template: str, secret: str) -> None:
        c.append((name, template.format(s=secret), secret))

    add("env", "export OPENAI_API_KEY={s}", "sk-proj-" + r(URLSAFE, 48))
    add("env-quoted", 'GITHUB_TOKEN="{s}" make release', "ghp_" + r(ALNUM, 36))
    add("env-colon", "DB_PASSWORD: {s}", r(ALNUM, 14))
    add("env-escaped", '{{"cmd": "STRIPE_SECRET=\\"{s}\\" node app.js"}}', r(ALNUM, 30))
    add("json-apiKey", '{{"apiKey": "{s}", "model": "gpt"}}', r(ALNUM, 40))
    add("json-refresh", '"refreshToken" : "{s}"', r(URLSAFE, 64))
    add("json-password", '{{"user": "bob", "password": "{s}"}}', "hunter2!x")
    add("json-card", '{{"cardNumber": "{s}"}}', "4242" + r(DIG, 12))
    add("quoted-field", 'client_secret = "{s}"', r(ALNUM, 24))
    add("quoted-field-colon", "private_key: '{s}'", r(ALNUM, 44))
    add("quoted-auth-field", 'cookie: "sid={s}"', r(ALNUM, 32))
    add("cli-spaced", "openclaw login --api-key {s} --verbose", "sk-" + r(ALNUM, 40))
    add("cli-equals", "deploy --token={s}", r(ALNUM, 32))
    add("cli-password", "mysql -u root --password {s} db", "S3cr3t!" + r(ALNUM, 3))
    add("authorization-bearer", "Authorization: Bearer {s}", r(URLSAFE, 40))
    add("authorization-basic", "authorization=Basic {s}", r(ALNUM, 28) + "==")
    add("authorization-scheme", "Authorization: token {s}", r(HEX, 40))
    add("authorization-opaque", "Authorization: {s}\n", r(ALNUM, 32))
    add("proxy-authorization", "Proxy-Authorization: Digest-ish {s}", r(ALNUM, 30))
    add("bearer", "got 401 with Bearer {s} from the proxy", r(URLSAFE, 30) + "." + r(ALNUM, 8))
    add("x-api-key", "curl -H 'x-api-key: {s}' https://api.example.com", r(ALNUM, 32))
    add("goog-api-key", "X-Goog-Api-Key: {s}", r(ALNUM, 30))
    add("gateway-token", "X-OpenClaw-Token: {s}", r(HEX, 48))
    add("cookie-header", "Cookie: sessionid={s}; theme=dark", r(ALNUM, 32))
    add("set-cookie-header", "Set-Cookie: id={s}; Path=/; HttpOnly", r(ALNUM, 26))
    add("assignment", "login password={s} user=bob", "hunter2" + r(DIG, 3))
    add("assignment-quoted", "(token='{s}')", r(ALNUM, 28))
    add("config-quoted", 'password: "{s}"', "correct horse " + r(LOW, 8))
    add("config-prefixed", "smtp-password = '{s}'", r(ALNUM, 16))
    add("config-dotted", 'db.secret: "{s}"', r(ALNUM, 22))
    add("config-direct", "secret-key={s}", r(ALNUM, 30))
    add("form-body", "body: token={s}&grant_type=refresh", r(ALNUM, 30))
    add("url-password", "clone https://bob:{s}@git.example.com/x.git", r(ALNUM, 20))
    add("wss-password", "wss://svc:{s}@ws.example.com/feed", r(ALNUM, 12))
    add("db-password", "DATABASE_URL is postgres://app:{s}@db:5432/prod", r(ALNUM, 24))
    add("mongodb-srv", "mongodb+srv://admin:{s}@cluster0.x.mongodb.net", r(ALNUM, 16) + "/+")
    add("redis-no-user", "redis://:{s}@cache:6379/0", r(ALNUM, 20))
    add("aws-access-key", "key id {s} in us-east-1", "AKIA" + r(UP + "234567", 16))
    add("aws-session-key", "({s})", "ASIA" + r(UP + "234567", 16))
    add("aws-secret-field", "aws_secret_access_key = {s}", r(ALNUM + "/+", 40))
    add("aws-secret-json", '"SecretAccessKey": "{s}"', r(ALNUM + "/+", 40))
    vendors = {
        "openai": "sk-proj-" + r(URLSAFE, 40),
        "anthropic": "sk-ant-api03-" + r(URLSAFE, 80),
        "github": "ghp_" + r(ALNUM, 36),
        "github-oauth": "gho_" + r(ALNUM, 36),
        "github-pat": "github_pat_11" + r(ALNUM, 20) + "_" + r(ALNUM, 59),
        "gitlab": "glpat-" + r(URLSAFE, 20),
        "gitlab-deploy": "gldt-" + r(URLSAFE, 20),
        "gitlab-runner-reg": "GR1348941" + r(URLSAFE, 20),
        "slack-bot": "xoxb-" + r(DIG, 12) + "-" + r(DIG, 13) + "-" + r(ALNUM, 24),
        "slack-user": "xoxp-" + r(DIG, 12) + "-" + r(ALNUM, 20),
        "slack-app": "xapp-1-A" + r(UP + DIG, 10) + "-" + r(HEX, 40),
        "groq": "gsk_" + r(ALNUM, 52),
        "google": "AIza" + r(URLSAFE, 35),
        "google-oauth": "ya29." + r(URLSAFE, 60),
        "google-refresh": "1//0" + r(URLSAFE, 40),
        "perplexity": "pplx-" + r(ALNUM, 48),
        "npm": "npm_" + r(ALNUM, 36),
        "stripe-live": "sk_live_" + r(ALNUM, 24),
        "stripe-restricted": "rk_live_" + r(ALNUM, 24),
        "stripe-test": "sk_test_" + r(ALNUM, 24),
        "sendgrid": "SG." + r(URLSAFE, 22) + "." + r(URLSAFE, 43),
        "jwt": "eyJ" + r(URLSAFE, 20) + "." + "eyJ" + r(URLSAFE, 40) + "." + r(URLSAFE, 43),
        "huggingface": "hf_" + r(ALNUM, 34),
        "xai": "xai-" + r(ALNUM, 80),
        "pypi": "pypi-AgEIcHlwaS5vcmc" + r(URLSAFE, 60),
        "digitalocean": "dop_v1_" + r(HEX, 64),
        "fernet": "gAAAAA" + r(URLSAFE, 60) + "==",
        "databricks": "dapi" + r(HEX, 32),
        "fal": "fal_" + r(URLSAFE, 30),
        "tavily": "tvly-" + r(ALNUM, 32),
        "replicate": "r8_" + r(ALNUM, 37),
        "hf-org": "api_org_" + r(ALNUM, 34),
        "tencent": "AKID" + r(ALNUM, 32),
        "alibaba": "LTAI" + r(ALNUM, 20),
        "docker": "dckr_pat_" + r(URLSAFE, 27),
        "contentful": "CFPAT-" + r(URLSAFE, 43),
        "atlassian": "ATATT3xFfGF0" + r(URLSAFE, 180) + "=" + r(ALNUM, 8),
        "bitbucket": "ATBB" + r(ALNUM, 32),
        "heroku": "HRKU-AA" + r(URLSAFE, 58),
        "elevenlabs": "sk_" + r(HEX, 48),
        "agentmail": "am_" + r(URLSAFE, 40),
        "fireworks": "fw_" + r(ALNUM, 32),
        "exa": "exa_" + r(ALNUM, 32),
        "matrix": "syt_" + r(ALNUM, 30),
        "mem0": "mem0_" + r(ALNUM, 30),
        "supabase": "sbp_" + r(LOW + DIG, 40),
        "datadog": "ddp_" + r(ALNUM, 36),
        "netlify": "nfp_" + r(ALNUM, 36),
        "buildkite": "bkua_" + r(LOW + DIG, 40),
        "hubspot": "pat-na1-" + "-".join(r(ALNUM, n) for n in (8, 4, 4, 4, 12)),
        "apify": "apify_api_" + r(ALNUM, 36),
        "fly": "FlyV1 fm2_" + r(ALNUM + "+/", 120),
        "telegram": r(DIG, 10) + ":AA" + r(URLSAFE, 33),
    }
    for name, secret in vendors.items():
        add(f"vendor-{name}", "here: {s} (keep it safe)", secret)
    add(
        "telegram-url",
        "GET https://api.telegram.org/bot{s}/getUpdates",
        r(DIG, 9) + ":AA" + r(URLSAFE, 33),
    )
    add(
        "slack-webhook",
        "post to {s} now",
        "https://hooks.slack.com/services/T"
        + r(UP + DIG, 8)
        + "/B"
        + r(UP + DIG, 10)
        + "/"
        + r(ALNUM, 24),
    )
    add(
        "discord-webhook",
        "hook {s}",
        "https://discord.com/api/webhooks/" + r(DIG, 18) + "/" + r(URLSAFE, 68),
    )
    add(
        "discord-bot",
        "the discord bot token is {s}",
        "MT" + r(ALNUM, 22) + "." + r(URLSAFE, 6) + "." + r(URLSAFE, 27),
    )
    return c


CASES = _cases()


FRAGMENTS = [
    "token", "TOKEN", "api_key", "API_KEY", "password", "secret", "Authorization", "Bearer",
    "cookie", "x-api-key", "sk-", "ghp_", "xoxb-", "glpat-", "AKIA", "AIza", "eyJ", "hf_",
    "SG.", "dop_v1_", "bot", "123456789", "https://", "postgres://", "@", ":", "=", "&", "--",
    " ", "\n", '"', "'", ".", "_", "-", "/", "-----BEGIN RSA PRIVATE KEY-----",
    "-----END RSA PRIVATE KEY-----", "discord", "ATBB", "dapi", "GR1348941", "1//0", "é", "…",
] + [r(URLSAFE, n) for n in (4, 8, 12, 20, 24, 40)]  # fmt: skip


def leaks(secret: str, out: str) -> list[str]:
    """Pieces of ``secret`` (11 characters or the whole of a short one) that ``out`` still shows,
    beyond the edges a mask keeps (its first 6 and last 4 characters)."""
    if len(secret) < 11:
        return [secret] if secret in out else []
    return [
        secret[i : i + 11]
        for i in range(len(secret) - 10)
        if secret[i : i + 11] in out and secret[:6] not in secret[i : i + 11]
        and secret[-4:] not in secret[i : i + 11]
    ]  # fmt: skip


def index_shapes(
    src: Path, sid: str, marker: str, shapes: Sequence[Any], refs: Sequence[str]
) -> None:
    """One session ``sid`` (agent:main:main) holding each shape's text under ``marker i:`` (a
    user's, a tool's and the assistant's message in turn) and each reference under ``zzref i:``,
    imported from ``src`` and indexed."""
    d = src / "agents" / "main" / "sessions"
    s = Session(sid)
    for i, shape in enumerate(shapes):
        note = f"{marker} {i}:\n{shape.text}\nzzend"
        (s.user if i % 3 == 0 else s.tool if i % 3 == 1 else s.assistant)(note)
    for i, text in enumerate(refs):
        s.assistant(f"zzref {i}:\n{text}\nzzend")
    s.write(d / f"{sid}.jsonl")
    write_sessions_json(d, {"agent:main:main": {"sessionId": sid}})
    assert run_cli("import", str(src), "--reindex").exit_code == 0


def shown(shapes: Sequence[Any], text: str) -> list[tuple[str, str]]:
    """(family, secret) of each shape's secret of 6 characters or more that ``text`` shows."""
    return [(s.family, x) for s in shapes for x in s.secrets if len(x) >= 6 and x in text]


# Markdown tables and rules, flags after a value: what a shape sits in when people paste it.
ALONE = ("|---|---|\n{}\n|---|---|", "------\n{}\n------", "{}\n\n---\n", "{}\n--x --",
          "--\n{}", "| {} |")  # fmt: skip
IN_A_LINE = ("| a | {} |\n|---|---|", "{} --x --", "{} | b")
# Families that are a whole line of a file (a .pgpass line): masked alone on their line only.


def in_every_context(red: Any, shape: Any, line_only: Callable[[str], bool]) -> None:
    """``shape`` pasted in each of ALONE and IN_A_LINE: the output is the one every rule run on
    the whole text gives, and no secret is left, except in a template ``line_only`` names (the
    shape holds on a line of its own only)."""
    for template in ALONE + IN_A_LINE:
        text = template.format(shape.text)
        out = red.redact_text(text)
        assert out == red._run(text, [], gate=False), template
        if line_only(template):
            continue
        for secret in shape.secrets:
            assert secret not in out, (template, out)
