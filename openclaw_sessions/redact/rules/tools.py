"""Command lines of tools that take a password in a flag (``mysql -p…``, ``sshpass -p``,
``curl -u user:pw``, ``smbclient -U user%pw``, ``htpasswd -b`` …): their table, the anchor that
gates them and the one finder that runs them; with the value shape (``VAL``) and the placeholder
check that the other command-line families (``generic``, ``files``) share.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from openclaw_sessions.redact.syntax import (
    ASCII,
    NOCASE,
    TOKEN,
    Anchor,
    Hit,
    RuleCheck,
    Span,
    compiled,
    lazy,
    line_end,
    trie,
)

from . import names


def _placeholder_check(m: re.Match[str]) -> Span | None:
    g = m.lastindex or 0
    return None if not g or names.placeholder(m.group(g)) else m.span(g)


# The other modules take it by this name; the function keeps its own, because a family's
# check is named (its __qualname__) in the redaction fingerprint.
placeholder_check = _placeholder_check


def _htpasswd_check(m: re.Match[str]) -> Span | None:
    flags, args = m.group(1), list(re.finditer(r"\S+", m.group(2)))
    if "b" not in flags:
        return None
    i = 1 if "n" in flags else 2
    if i >= len(args):
        return None
    s, e = m.start(2) + args[i].start(), m.start(2) + args[i].end()
    return None if names.placeholder(m.string[s:e]) else (s, e)


VAL = r"(?:'([^'\r\n]+)'|\"([^\"\r\n]+)\"|([^\s'\"|;&<>`][^\s|;&`]*))"
# Tools that take a password in a flag: (tool name, more of the name, flag, what follows it).
# One finder runs them, only where a flag follows a tool's name on its line (the anchor).
_LOGIN, _SP = r"\b[^\n|;&]*?\blogin", "[ \t]+"
_TOOLS = (
    ("mysql", "(?:dump|admin|import|show|check|pump|sh|binlog)?", "-p", ""),
    ("mariadb", "(?:-?dump|-?admin)?", "-p", ""),
    ("7z", "[ar]?", "-p", ""),
    ("sshpass", "", "-p", "[ \t]*"),
    *((t, _LOGIN, "-p", _SP) for t in ("docker", "podman", "helm", "nerdctl")),
    ("redis-cli", "", "-a", "[ \t]+"),
    ("mongo", "(?:sh|dump|restore|export|import|stat|top|files)?", "-p", "[ \t]+"),
    ("cqlsh", "", "-p", "[ \t]+"),
    ("sqlcmd", "", "-P", "[ \t]*"),
    ("bcp", "", "-P", "[ \t]*"),
    ("ldap", "(?:search|add|modify|delete|whoami|passwd|compare|modrdn|exop|url)", "-[wsa]",
     "[ \t]+"),
    ("mosquitto_", "(?:pub|sub|rr)", "-P", "[ \t]+"),
    *((t, "", "-P", _SP) for t in ("zip", "unzip")),
    ("ssh-keygen", "", "-[NP]", "[ \t]+"),
    ("az", _LOGIN, "-p", _SP),
    ("openssl", "", "-k", "[ \t]+"),
    ("openssl", "", "-pass(?:in|out)?[ \t]+pass:", ""),
    ("keytool", "", "-(?:src|dest|new)?(?:store|key)?pass(?:word)?", "[ \t]+"),
    ("jarsigner", "", "-(?:store|key)pass", "[ \t]+"),
    ("gh", r"[ \t]+secret[ \t]+set", "(?:-b|--body)", "(?:=|[ \t]+)"),
    # third round (issue 23): admin tools, logins that take a token
    ("psexec", "", "(?-i:-p)", "[ \t]+"),
    ("ipmitool", "", "(?-i:-P)", "[ \t]+"),
    *((t, "", "-pw", _SP) for t in ("plink", "pscp", "psftp")),
    ("cypher-shell", "", "(?-i:-p)", "[ \t]+"),
    ("influx", "", "-password", "[ \t]+"),
    *((t, _LOGIN, "(?-i:-p)", _SP) for t in ("cf", "oc", "expo", "eas")),
    ("twine", "", "(?-i:-p)", "[ \t]+"),
    ("dotnet", r"[ \t]+nuget\b", "(?-i:-p)", "[ \t]+"),
    *((t, "", "(?-i:-t)", _SP) for t in ("vercel", "codecov")),
    ("rar", "", "(?-i:-(?:hp|p))", ""),
    ("unrar", "", "(?-i:-p)", ""),
)  # fmt: skip
_TOOL = r"{}(?<![A-Za-z0-9_.-]{}){}\b[^\n|;&]*?[ \t]{}{}"
_SNMP = tuple(f"snmp{c}" for c in ("walk", "get", "getnext", "bulkwalk", "bulkget", "set",
                                  "table", "trap", "inform", "delta", "df", "netstat", "status",
                                  "test"))  # fmt: skip


def _community_check(m: re.Match[str]) -> Span | None:
    """An SNMP community or v3 pass phrase; the well-known defaults are no secret."""
    g = m.lastindex or 0
    v = m.group(g)
    return None if names.placeholder(v) or v.lower() in ("public", "private") else m.span(g)


_TOOL_NAMES = ("mysql", "mysqldump", "mysqladmin", "mysqlimport", "mysqlshow", "mysqlcheck",
               "mysqlpump", "mysqlsh", "mysqlbinlog", "mariadb", "mariadb-dump", "mariadbdump",
               "mariadb-admin", "mariadbadmin", "7z", "7za", "7zr", "sshpass", "docker", "podman",
               "helm", "nerdctl", "redis-cli", "mongo", "mongosh", "mongodump", "mongorestore",
               "mongoexport", "mongoimport", "mongostat", "mongotop", "mongofiles", "cqlsh",
               "sqlcmd", "bcp", "ldapsearch", "ldapadd", "ldapmodify", "ldapdelete", "ldapwhoami",
               "ldappasswd", "ldapcompare", "ldapmodrdn", "ldapexop", "ldapurl", "mosquitto_pub",
               "mosquitto_sub", "mosquitto_rr", "zip", "unzip", "ssh-keygen", "az", "openssl",
               "keytool", "jarsigner", "gh", "curl", "smbclient", "rpcclient", "smbmap",
               "smbget", "mount", "htpasswd", "sudo", "psexec", "ipmitool", "plink", "pscp",
               "psftp", "cypher-shell", "influx", "cf", "oc", "expo", "eas", "twine", "dotnet",
               "vercel", "codecov", "rar", "unrar", "lftp", "http", "https", "etcdctl",
               *_SNMP)  # fmt: skip
# A flag (" -p", "--user") with one of the tools named before it on its line.
TOOL_GATE = (
    Anchor(
        "r",
        "-",
        r"(?<=[A-Za-z]-)(?=-?[ \t][^\n]{0,200}?"
        + trie((t[::-1] for t in _TOOL_NAMES), False, True)
        + r"(?![A-Za-z0-9_.-]))",
    ),
)
# Tools that take a password in a flag are found by one finder (one rule, one anchor).
_TOOL_SPECS: tuple[tuple[tuple[str, ...], str, RuleCheck], ...] = (
    *(((t,), _TOOL.format(re.escape(t), re.escape(t), more, f, sep) + VAL, _placeholder_check)
      for t, more, f, sep in _TOOLS),
    (("curl",), r"curl(?<![A-Za-z0-9_.-]curl)\b[^\n|;&]*?[ \t](?:-u|-U|--user|--proxy-user)"
     r"(?:=|[ \t]*)(?:'[^':\r\n]*:([^'\r\n]+)'|\"[^\":\r\n]*:([^\"\r\n]+)\""
     r"|[^\s'\":]*:([^\s'\"]+))", _placeholder_check),
    (("smbclient", "rpcclient", "smbmap", "smbget", "mount"),
     r"(?<![A-Za-z0-9_.-])(?:smbclient|rpcclient|smbmap|smbget|"
     r"mount)\b[^\n|;&]*?[ \t](?:-U|--user(?:name)?)(?:=|[ \t]+)['\"]?[^%\s'\"]+%([^\s'\"]+)",
     _placeholder_check),
    (_SNMP, r"(?<![A-Za-z0-9_.-])snmp[a-z]+\b[^\n|;&]*?[ \t](?-i:-[cAX])[ \t]*" + VAL,
     _community_check),
    (("lftp",), r"lftp(?<![A-Za-z0-9_.-]lftp)\b[^\n|;&]*?[ \t]-u[ \t]+['\"]?[^,\s'\"]+,"
     r"([^\s'\"]+)", _placeholder_check),
    (("http", "https"), r"(?<![A-Za-z0-9_.-])https?\b[^\n|;&]*?[ \t](?:-a|--auth)(?:=|[ \t]+)"
     r"['\"]?[^:\s'\"]*:([^\s'\"]+)", _placeholder_check),
    (("etcdctl",), r"etcdctl(?<![A-Za-z0-9_.-]etcdctl)\b[^\n|;&]*?[ \t]--user(?:=|[ \t]+)"
     r"['\"]?[^:\s'\"]+:([^\s'\"]+)", _placeholder_check),
    (("htpasswd",), r"htpasswd(?<![A-Za-z0-9_.-]htpasswd)((?:[ \t]+-[A-Za-z]+)+)"
     r"((?:[ \t]+[^\s-]\S*){2,3})", _htpasswd_check),
)  # fmt: skip
_TOOL_NAME = compiled(
    "|".join(
        # longest first, then by name: a set's order changes with the hash seed, and the
        # pattern text is the compiled-regex cache's key
        sorted(
            {re.escape(n) for need, _, _ in _TOOL_SPECS for n in need}, key=lambda n: (-len(n), n)
        )
    ),
    ASCII,
)


_TOOL_FLAG = compiled(r"-(?<=[ \t]-)[A-Za-z-]", ASCII)


def tool_hits(text: str) -> Iterator[Hit]:
    """Passwords given to the tools above: on each line with such a flag, the regexes of the
    tools named on that line."""
    end = 0
    for f in _TOOL_FLAG.finditer(text):
        if f.start() < end:
            continue  # a line already done
        start = text.rfind("\n", 0, f.start()) + 1
        end = line_end(text, f.end())
        named = {m.group() for m in _TOOL_NAME.finditer(text, start, f.start())}
        for need, src, check in _TOOL_SPECS if named else ():
            if not named.isdisjoint(need):
                for m in lazy(src, NOCASE).finditer(text, start, end):
                    if span := check(m):
                        yield span[0], span[1], TOKEN
