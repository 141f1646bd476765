"""False positives cost search recall: ordinary technical chat (prose about passwords and
tokens, code, logs, config talk) keeps its words through redaction, generated and real."""

from __future__ import annotations

import json
import random
import re
import uuid
from collections import Counter
from pathlib import Path

import pytest
from helpers import Session, json_out, run_cli, write_sessions_json

from openclaw_sessions.model.extract import message_text
from openclaw_sessions.redact import build_redactor

RED = build_redactor()
WORD = re.compile(r"\w+")
MAX_LOSS = 0.005  # the bar: under 0.5% of words masked

PROSE = [
    "The password policy requires rotation every {n} days, and the token lifetime is one hour.",
    "Set `token` to the value from the dashboard, then restart the {svc} service.",
    "Password: see vault, entry {svc}-prod.",
    "Where is the API key for {svc}? I think it's in the team's password manager.",
    "Rotate the secret before Friday; the old credentials expire with the {svc} migration.",
    "Use `--password-file` instead of passing the password on the command line.",
    "Tokens are counted per request: max_tokens was {n} and we hit the limit.",
    "If authentication fails, check that the bearer token header is present.",
    "The private key never leaves the HSM; only the public key is in the repo.",
    "Our secret management story: Vault for humans, SOPS for the {svc} cluster.",
    "Reset your password via the link; it expires in {n} minutes.",
    "The token: it expires hourly, so the cron job refreshes it.",
    "api keys belong in the environment, never in code review comments.",
    "Auth is handled by the gateway; the {svc} service only sees a session id.",
    "I changed the DB password yesterday and updated the {svc} deployment.",
    "Passwords must be at least {n} characters; passphrases are encouraged.",
]
CODE = [
    "def login(user: str, password: str, token: str | None = None) -> Session:\n"
    "    return auth.verify(user, password)",
    "api_key = os.environ['OPENAI_API_KEY']  # read it from the environment",
    "const token = await getAuthToken();\nif (!token) throw new Error('missing token');",
    'headers["Authorization"] = f"Bearer {token}"',
    "password = getpass.getpass('Password: ')",
    "db:\n  host: db.internal\n  password: ${DB_PASSWORD}\n  pool: {n}",
    "env:\n  - name: API_TOKEN\n    valueFrom:\n      secretKeyRef:\n        name: {svc}-secrets\n"
    "        key: token",
    "SELECT id, session_key, token_count FROM sessions WHERE user_id = ? LIMIT {n};",
    "password_hash = bcrypt.hashpw(password.encode(), bcrypt.gensalt())",
    'if config.get("secret") is None:\n    raise ValueError("secret is required")',
    "export VAULT_ADDR=https://vault.internal:8200",
    "kubectl create secret generic {svc}-db --from-file=password=./pw.txt",
    "docker run -p 8080:80 -e LOG_LEVEL=debug {svc}:latest && mkdir -p /srv/{svc}",
    "git log --oneline -n {n} && git show {sha}",
    "curl -s -H 'Accept: application/json' https://api.example.com/v1/{svc}?page={n}",
    '{"model": "gpt", "max_tokens": {n}, "temperature": 0.2, "stream": false}',
    "token_url: https://auth.example.com/oauth/token\nclient_id: {svc}-web",
    "bos_token: <s>\neos_token: </s>\npad_token: <pad>",
]
LOGS = [
    "2026-03-04T10:22:01.123Z INFO request_id={uuid} user=alice status=200 took={n}ms",
    "commit {sha}\nAuthor: Dev <dev@example.com>\n\n    fix token refresh race",
    "ERROR worker-{n} task_id={uuid} retry_in=30s: connection reset by peer",
    "sha256:{hex64}  {svc}.tar.gz",
    "[{svc}] WARN auth: token expired for session {uuid}, refreshing",
    "md5 {hex32}  backup-{n}.sql",
    "pod/{svc}-7d9f8b6c5-x2k4q   1/1   Running   0   {n}m",
    "{sha} Merge pull request #{n} from org/fix-password-reset",
]
SERVICES = ["billing", "search", "gateway", "ledger", "notifier", "reports"]


def _fill(rng: random.Random, template: str) -> str:
    out = template
    for key, make in (
        ("{n}", lambda: str(rng.randint(2, 9999))),
        ("{svc}", lambda: rng.choice(SERVICES)),
        ("{uuid}", lambda: str(uuid.UUID(int=rng.getrandbits(128)))),
        ("{sha}", lambda: f"{rng.getrandbits(160):040x}"),
        ("{hex64}", lambda: f"{rng.getrandbits(256):064x}"),
        ("{hex32}", lambda: f"{rng.getrandbits(128):032x}"),
    ):
        while key in out:
            out = out.replace(key, make(), 1)
    return out


def chat_corpus(n: int = 400, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    pools = [PROSE, CODE, LOGS]
    return ["\n\n".join(_fill(rng, rng.choice(rng.choice(pools))) for _ in range(rng.randint(1, 4)))
            for _ in range(n)]  # fmt: skip


def word_loss(texts: list[str]) -> tuple[int, int]:
    """(words lost to masking, words) over ``texts``."""
    lost = total = 0
    for t in texts:
        before = Counter(WORD.findall(t))
        after = Counter(WORD.findall(RED.redact_text(t)))
        total += sum(before.values())
        lost += sum((before - after).values())
    return lost, total


def test_generated_technical_chat_keeps_its_words() -> None:
    texts = chat_corpus()
    lost, total = word_loss(texts)
    assert total > 10_000
    assert lost / total < MAX_LOSS, (lost, total)


def test_identifiers_in_logs_stay_readable() -> None:
    rng = random.Random(3)
    for template in LOGS:
        text = _fill(rng, template)
        assert RED.redact_text(text) == text


@pytest.mark.parametrize("line", PROSE + CODE)
def test_named_words_around_the_keywords_survive(line: str) -> None:
    text = _fill(random.Random(1), line)
    out = RED.redact_text(text)
    lost = Counter(WORD.findall(text)) - Counter(WORD.findall(out))
    assert not lost, (text, out)


def _real_texts(corpus: Path) -> list[str]:
    texts = []
    for path in sorted(corpus.rglob("*.jsonl*")):
        if path.name.endswith(".lock"):
            continue
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            message = obj.get("message") if isinstance(obj, dict) else None
            if isinstance(message, dict):
                text = message_text(message)
                if text.strip():
                    texts.append(text)
    return texts


def test_real_transcripts_keep_their_words(corpus: Path) -> None:
    texts = _real_texts(corpus)
    assert len(texts) > 500
    lost, total = word_loss(texts)
    assert lost / total < MAX_LOSS, (lost, total)


def test_prose_around_keywords_is_found_by_search(tmp_path: Path) -> None:
    d = tmp_path / "src" / "agents" / "main" / "sessions"
    s = Session("recall-1")
    for i, line in enumerate(PROSE):
        (s.user if i % 2 else s.assistant)(_fill(random.Random(i), line))
    s.write(d / "recall-1.jsonl")
    write_sessions_json(d, {"agent:main:main": {"sessionId": "recall-1"}})
    assert run_cli("import", str(tmp_path / "src"), "--reindex").exit_code == 0
    for word in ("policy", "rotation", "dashboard", "vault", "manager", "credentials",
                 "passphrases", "gateway", "HSM", "hourly"):  # fmt: skip
        hits = json_out(run_cli("search", word, "--json"))["results"]
        assert hits, word
