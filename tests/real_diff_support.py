"""What the differential tests against the real OpenClaw share (tests/test_real_openclaw_diff*.py):
a Pair of upstream's gateway and our store over the same transcripts, each tool asked both ways,
the normalisation of what may legitimately differ, and the check against a table of expected
differences (a listed case must differ, so a fix flips it; every other case must be equal)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import real_openclaw as ro
from mcp_support import cli_json


def config(tools: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """openclaw.json: a local gateway, both agents declared (upstream refuses an agent id that
    is not in `agents.list`), the case's `tools` section and any other top-level section."""
    agents = {"list": [{"id": "main", "default": True}, {"id": "ops"}]}
    return {"gateway": {"mode": "local"}, "agents": agents, "tools": tools} | extra


class Pair:
    """Upstream's gateway and our store over the same transcripts, under one config.

    ``configs`` names each case's openclaw.json (the gateway hot-reloads it; ours reads the same
    file); ``sandboxed(caller, config name)`` says when our side is asked with `--sandboxed`, as
    a host that knows the caller is sandboxed asks it (None: never)."""

    def __init__(
        self,
        gw: ro.Gateway,
        ours: Path,
        configs: Mapping[str, dict[str, Any]],
        sandboxed: Callable[[str, str], bool] | None = None,
    ) -> None:
        self.gw, self.ours, self.configs, self.config = gw, ours, configs, ""
        self.sandboxed = sandboxed

    def use(self, name: str) -> None:
        if name == self.config:
            return
        cfg = self.configs[name]
        ro.write_config(self.ours, cfg)  # ours reads the same openclaw.json
        self.gw.reconfigure(cfg)
        self.config = name

    def theirs(self, tool: str, args: dict[str, Any], caller: str) -> Any:
        status, out = self.gw.post({"tool": tool, "args": args, "sessionKey": caller})
        if status == 200 and isinstance(out, dict) and out.get("ok"):
            return out["result"].get("details", out["result"])
        # A refused call: the HTTP status is the transport's, the message is the tool's.
        return {"error": out["error"]["message"]} if isinstance(out, dict) else {"http": status}

    def cli(self, tool: str, args: dict[str, Any], caller: str, *extra: str) -> Any:
        agent = caller.split(":")[1]
        if tool == "sessions_search":
            argv = ["search", args["query"], "--limit", str(args.get("limit", 10))]
        else:
            argv = ["history", args["sessionKey"]]
            if args.get("includeTools"):
                argv.append("--include-tools")
            if "messageId" in args:  # upstream ignores an offset beside it: so do we
                argv += ["--around", args["messageId"], "--offset", str(args.get("offset", 0))]
            elif "offset" in args:
                argv += ["--offset", str(args["offset"])]
            if "limit" in args:
                argv += ["--limit", str(args["limit"])]
        if self.sandboxed is not None and self.sandboxed(caller, self.config):
            argv.append("--sandboxed")
        code, out, err = cli_json(self.ours, *argv, *extra, "--as", caller, "--agent", agent)
        if out is not None:
            return out
        # A refused call: exit 2 and `error: MESSAGE` (plus, in operator words, a hint).
        assert code == 2, err
        return {"error": err.strip().removeprefix("error: ").split(" (hint:")[0]}


def normalise(x: Any) -> Any:
    """What may legitimately differ between two stores of the same transcripts:
    - `__openclaw.transcriptPosition` {source, rawSeq}: `source` is an opaque id of a row of
      upstream's own database, which a store built from the transcripts cannot know, so ours
      leaves the field out, and a history's `bytes` (which counts it) differs by it;
    - `score`: bm25 over each store's own FTS table, rounded to 6 places (float formatting)."""
    if isinstance(x, dict):
        out = {}
        for k, v in x.items():
            if k in ("transcriptPosition", "bytes"):  # HISTORY_POSITION
                continue
            if k == "score" and isinstance(v, float):
                v = round(v, 6)
            out[k] = normalise(v)
        return out
    if isinstance(x, list):
        return [normalise(v) for v in x]
    return x


def check(case: str, ours: Any, theirs: Any, expected_diff: Mapping[str, str]) -> None:
    """Equal after normalise(), unless ``case`` is listed in ``expected_diff``: then different."""
    a, b = normalise(ours), normalise(theirs)
    if dump := os.environ.get("REALDIFF_DUMP"):  # debugging aid: both answers, per case
        Path(dump).mkdir(parents=True, exist_ok=True)
        name = "".join(c if c.isalnum() or c in "-_." else "_" for c in case)
        (Path(dump) / f"{name}.json").write_text(json.dumps({"ours": a, "theirs": b}, indent=1,
                                                            ensure_ascii=False))  # fmt: skip
    if case in expected_diff:
        assert a != b, f"{case} is now equal: remove it from EXPECTED_DIFF ({expected_diff[case]})"
    else:
        assert a == b, f"{case}\nours:   {json.dumps(a, ensure_ascii=False)}\n" \
            f"theirs: {json.dumps(b, ensure_ascii=False)}"  # fmt: skip
