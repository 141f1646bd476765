"""Cost of redaction: these rules against a baseline revision's (by default ``main``), in one
run on the same messages, next to two floors; and the cost of its first use in a fresh process.

Run: ``python bench/bench_redact.py [--mb 8] [--secret-rate 0.003] [--seed 1] [--base main]
[--from DIR] [--starts 7]``.

The text is messages as reindex sees them: chat prose (English, and a quarter of the messages in
German, French, Russian, Japanese or Chinese, with emoji and typographic punctuation), code,
shell output, JSON tool calls, logs and URLs; fake secrets of several families are planted at a
low rate. ``--from DIR`` takes instead the user and assistant texts of the ``*.jsonl``
transcripts under DIR (a ``gen_corpus.py`` output, ``../shared/corpus/real``). The baseline's
package is taken with ``git archive BASE openclaw_sessions`` and imported as ``ocs_base`` (its
own imports rewritten to it), and its redactor built (``redact/``, or ``policy/redact.py`` in
older revisions). Floors over the same messages: a ``str.lower()`` pass and a one-literal
regex scan. It counts the messages whose redacted text differs from the baseline's (a change
meant to be only faster must report 0). Throughput figures are the best of several rounds
(CPU time): microseconds per message and MB of UTF-8 per second; the ratio is new / base.
First use: CPU time of importing the package's redaction, building the redactor and redacting
the first messages in a fresh interpreter (what every CLI run pays once), median of
``--starts`` runs, alternating the trees.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import openclaw_sessions  # noqa: E402,F401
from openclaw_sessions.model.extract import message_text  # noqa: E402
from openclaw_sessions.redact import build_redactor  # noqa: E402

EN = (
    "the of and to in is that for it with as was on be by this are from at or have an they which "
    "one you had not but what all were when we there can been has more if will would their who "
    "so about out up them into do then some could time like other than its only now token key "
    "secret password session code auth reset config file test build run error value function "
    "method class module import export server client request response bearer api"
).split()
OTHER = {
    "de": "und der die das ist nicht mit für auf dem ein eine werden über können müssen Größe "
    "Straße schön Schlüssel Passwort Sitzung".split(),
    "fr": "le la les des est une pour avec être très où déjà français garçon élève clé "
    "mot de passe jeton".split(),
    "ru": "и в не на я что тот быть с а весь это как она по но они к у ты из мы за ключ пароль "
    "токен".split(),
    "ja": "これは 日本語 の テキスト です 東京 会議 資料 確認 お願いします 鍵 パスワード".split(),
    "zh": "我们 今天 需要 检查 代码 的 问题 和 测试 结果 密钥 令牌".split(),
}
SYMBOLS = ["—", "→", "✅", "…", "“", "”", "👍", "🎉", "👨‍👩‍👧", "❤️", "🇩🇪", "é", "ñ"]
CODE = [
    "def handle(self, request: Request, token: str) -> Response:\n"
    "    payload = json.loads(request.body)\n    return Response(status=200)\n",
    "for (let i = 0; i < items.length; i++) { console.log(items[i].name); }\n",
    "$ git status\nOn branch main\nYour branch is up to date with 'origin/main'.\n",
    "SELECT id, session_key, created_at FROM sessions WHERE agent_id = ? LIMIT 50;\n",
    "config_path = Path.home() / '.openclaw' / 'openclaw.json'\n"
    "api_key = os.environ.get('API_KEY')\n",
    '  File "/usr/lib/python3.11/site-packages/foo/bar.py", line 42, in run\n'
    "    raise ValueError('bad input')\n",
    "npm install --save-dev typescript@5.4.2 eslint && npm run build -- --watch\n",
    "const auth = await getAuthToken(); // refresh the token when it expires\n",
    "See https://github.com/openclaw/openclaw/blob/main/src/logging/redact.ts#L42 and "
    "https://docs.python.org/3/library/re.html?highlight=sub&version=3\n",
    "commit 3f2a9c1e8b7d6f5a4c3b2a1908e7d6c5b4a39281\nAuthor: Dev <dev@example.com>\n",
    '<div class="container"><a href="/settings/api-keys">API keys</a></div>\n',
    "- [ ] update `session_store.py`\n- [x] fix the reindex_agent() call in cli.py\n",
    "ERROR 2025-03-04T10:22:01.123Z worker-3 task_id=8f2c request_id=abc-123 retry_in=30s\n",
    "  Authorization header is required; pass the password via --password-file.\n",
]
HEX, ALNUM = "0123456789abcdef", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def _r(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def planted(rng: random.Random) -> str:
    """A fake secret of a random family, in its usual context."""
    return rng.choice(
        [
            lambda: "OPENROUTER_API_KEY=sk-or-v1-" + _r(rng, HEX, 64),
            lambda: "Authorization: Bearer " + _r(rng, ALNUM, 40),
            lambda: "token ghp_" + _r(rng, ALNUM, 36),
            lambda: '{"apiKey": "' + _r(rng, ALNUM, 32) + '"}',
            lambda: "postgres://app:" + _r(rng, ALNUM, 16) + "@db.internal:5432/prod",
            lambda: "AKIA" + _r(rng, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16),
            lambda: (
                "eyJ" + _r(rng, ALNUM, 30) + "." + _r(rng, ALNUM, 40) + "." + _r(rng, ALNUM, 40)
            ),
            lambda: "xoxb-" + _r(rng, "0123456789", 12) + "-" + _r(rng, ALNUM, 24),
        ]
    )()


def message(rng: random.Random, secret_rate: float) -> str:
    lang = rng.choice(list(OTHER)) if rng.random() < 0.25 else None
    parts = []
    for _ in range(rng.randrange(1, 12)):
        r = rng.random()
        if r < secret_rate:
            parts.append(planted(rng))
        elif r < 0.35:
            parts.append(rng.choice(CODE))
        elif r < 0.42:
            call = {"tool": "exec", "args": {"cmd": rng.choice(CODE)[:60], "timeout": 30}}
            parts.append(json.dumps(call) + "\n")
        else:
            words = OTHER[lang] if lang else EN
            s = " ".join(rng.choice(words) for _ in range(rng.randrange(5, 25)))
            if rng.random() < 0.15:
                s += " " + rng.choice(SYMBOLS)
            parts.append(s.capitalize() + ".\n")
    return "".join(parts)


def corpus(total_bytes: int, seed: int, secret_rate: float) -> list[str]:
    rng, out, n = random.Random(seed), [], 0
    while n < total_bytes:
        m = message(rng, secret_rate)
        out.append(m)
        n += len(m.encode())
    return out


def transcript_texts(root: Path) -> list[str]:
    """The user and assistant texts of the transcripts under ``root``."""
    out = []
    for path in sorted(root.rglob("*.jsonl*")):
        if path.name.endswith(".lock"):
            continue
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            msg = obj.get("message") if isinstance(obj, dict) else None
            if isinstance(msg, dict) and msg.get("role") in ("user", "assistant"):
                if (text := message_text(msg)).strip():
                    out.append(text)
    return out


def extract_base(ref: str) -> tuple[Path, str]:
    """``ref``'s package in a temp dir as ``ocs_base``, and the module that builds its redactor."""
    import io
    import tarfile
    import tempfile

    tar = subprocess.run(["git", "archive", ref, "openclaw_sessions"], cwd=REPO,
                         capture_output=True, check=True).stdout  # fmt: skip
    where = Path(tempfile.mkdtemp(prefix="ocs-redact-base-"))
    with tarfile.open(fileobj=io.BytesIO(tar)) as archive:
        archive.extractall(where, filter="data")
    pkg = where / "ocs_base"
    (where / "openclaw_sessions").rename(pkg)
    for f in pkg.rglob("*.py"):  # its absolute imports must find it, not this tree
        f.write_text(re.sub(r"\bopenclaw_sessions\b", "ocs_base", f.read_text("utf-8")), "utf-8")
    for rel, module in (
        ("redact", "ocs_base.redact"),
        ("policy/redact.py", "ocs_base.policy.redact"),
    ):
        if (pkg / rel).exists():
            return where, module
    raise SystemExit(f"error: no redaction in {ref}")


FIRST_USE = """
import sys, time
t = time.process_time()
from {module} import build_redactor
r = build_redactor()
for m in sys.stdin.read().split("\\0"):
    r.redact_text(m)
print(time.process_time() - t)
"""


def first_use_ms(
    trees: dict[str, tuple[str, str]], msgs: list[str], starts: int
) -> dict[str, float]:
    """Median CPU ms of a fresh interpreter's import, build and first redactions, per tree."""
    sample = "\0".join(msgs[:50])
    times: dict[str, list[float]] = {name: [] for name in trees}
    for _ in range(starts):
        for name, (path, module) in trees.items():
            out = subprocess.run([sys.executable, "-c", FIRST_USE.format(module=module)],
                                 input=sample, text=True, capture_output=True, check=True,
                                 env={**os.environ, "PYTHONPATH": path})  # fmt: skip
            times[name].append(float(out.stdout) * 1e3)
    return {name: statistics.median(t) for name, t in times.items()}


def best_us(fn: Callable[[str], object], msgs: list[str], rounds: int) -> float:
    """Best CPU time per message over ``rounds``, in microseconds."""
    best = float("inf")
    for _ in range(rounds):
        t = time.process_time()
        for m in msgs:
            fn(m)
        best = min(best, time.process_time() - t)
    return best / len(msgs) * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mb", type=float, default=8.0)
    ap.add_argument("--secret-rate", type=float, default=0.003)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--base", default="main", help="git revision to compare with")
    ap.add_argument("--from", dest="src", type=Path, help="read transcripts under DIR instead")
    ap.add_argument("--starts", type=int, default=7, help="fresh interpreters per tree")
    a = ap.parse_args()
    msgs = transcript_texts(a.src) if a.src else corpus(int(a.mb * 1e6), a.seed, a.secret_rate)
    size = sum(len(m.encode()) for m in msgs)
    where, module = extract_base(a.base)
    sys.path.insert(0, str(where))
    new, base = build_redactor(), importlib.import_module(module).build_redactor()
    outs = [new.redact_text(m) for m in msgs]
    outs_base = [base.redact_text(m) for m in msgs]  # type: ignore[attr-defined]
    changed = sum(o is not m for o, m in zip(outs, msgs, strict=True))
    changed_base = sum(o is not m for o, m in zip(outs_base, msgs, strict=True))
    differ = sum(o != b for o, b in zip(outs, outs_base, strict=True))
    literal = re.compile(r"\x00")
    rows = [
        ("floor: str.lower()", best_us(str.lower, msgs, a.rounds)),
        ("floor: one-literal scan", best_us(literal.search, msgs, a.rounds)),
        (f"redact_text, {a.base}", best_us(base.redact_text, msgs, a.rounds)),  # type: ignore[attr-defined]
        ("redact_text, this tree", best_us(new.redact_text, msgs, a.rounds)),
    ]
    per_mb = len(msgs) / (size / 1e6)
    print(
        f"corpus: {size / 1e6:.1f} MB UTF-8, {len(msgs)} messages (mean {size / len(msgs):.0f} B); "
        f"redacted: {changed} ({changed / len(msgs):.1%}) here, {changed_base} on {a.base}; "
        f"outputs that differ from {a.base}'s: {differ}"
    )
    for name, us in rows:
        print(f"{name:28s} {us:7.2f} us/msg  {1e6 / (us * per_mb) if us else 0:8.1f} MB/s")
    print(f"ratio this tree / {a.base}: x{rows[3][1] / rows[2][1]:.2f} per message")
    trees = {a.base: (str(where), module), "this tree": (str(REPO), "openclaw_sessions.redact")}
    first = first_use_ms(trees, msgs, a.starts)
    print(f"first use (import, build, 50 messages; CPU ms, median of {a.starts}): "
          + ", ".join(f"{name} {ms:.0f}" for name, ms in first.items())
          + f"; ratio x{first['this tree'] / first[a.base]:.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
