"""Secret shapes as people paste them, generated at test time (no real or real-looking secret is
stored in the repository: each is a prefix plus a seeded random body).

``shapes()`` returns ``Shape(family, text, secrets)``: ``text`` is what is pasted, ``secrets`` the
parts that must never survive redaction (a value, or every line of a multi-line block).
"""

from __future__ import annotations

import base64
import random
from typing import NamedTuple

UP, LOW, DIG = "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz", "0123456789"
ALNUM, HEX = UP + LOW + DIG, "0123456789abcdef"
URLSAFE, B64 = ALNUM + "_-", ALNUM + "+/"
SYMBOLS = "!#%*+-.=@^_~"


class Shape(NamedTuple):
    family: str
    text: str
    secrets: tuple[str, ...]


class _Gen:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def r(self, alphabet: str, n: int) -> str:
        """Random, with at least one digit and one letter when the alphabet has both."""
        while True:
            s = "".join(self.rng.choice(alphabet) for _ in range(n))
            if (
                n < 4
                or not (set(alphabet) & set(DIG))
                or not (set(alphabet) - set(DIG))
                or (any(c.isdigit() for c in s) and any(c.isalpha() for c in s))
            ):
                return s

    def password(self, n: int = 14) -> str:
        """A typed password: letters, digits and a symbol or two."""
        core = self.r(ALNUM, n - 2)
        return core[:5] + self.rng.choice(SYMBOLS) + core[5:] + self.rng.choice(SYMBOLS)

    def words(self, n: int) -> str:
        """Made-up words (never ordinary English): a passphrase or a wallet's words."""
        return " ".join("zq" + self.r(LOW, 6) for _ in range(n))

    def pem_body(self, lines: int = 5) -> list[str]:
        return ["MII" + self.r(B64, 61) for _ in range(lines)]


def shapes(seed: int = 20260601) -> list[Shape]:  # noqa: PLR0915 - a table, one line per shape
    g = _Gen(seed)
    out: list[Shape] = []

    def add(family: str, template: str, *secrets: str) -> None:
        text = template
        for i, s in enumerate(secrets):
            text = text.replace(f"{{{i}}}", s)
        out.append(Shape(family, text, secrets))

    pw = g.password
    # --- YAML / config style, unquoted, any case ---------------------------------------------
    add("yaml-password", "db:\n  password: {0}\n  pool: 5", pw())
    add("yaml-Password", "Password: {0}", pw())
    add("yaml-token", "token: {0}", g.r(URLSAFE, 32))
    add("yaml-api_key", "api_key: {0}", g.r(ALNUM, 30))
    add("yaml-client_secret", "oauth:\n  client_secret: {0}\n", g.r(URLSAFE, 40))
    add("yaml-private_key", "private_key: {0}", g.r(B64, 44))
    add("yaml-passphrase", "passphrase: {0}", g.words(4))
    add("yaml-PASSWORD", "PASSWORD: {0}", pw())
    add("yaml-comment", "  db_password: {0}  # rotated monthly", pw())
    add(
        "yaml-block",
        "tls:\n  private_key: |\n    {0}\n    {1}\n  cert: ok",
        g.r(B64, 60),
        g.r(B64, 60),
    )
    add("yaml-wrapped", "token: {0}\n  {1}\nnext: 1", g.r(B64, 64), g.r(B64, 40))
    add("markdown-bold", "**Password:** `{0}`", pw())
    add("markdown-label", "- API Key: {0}", g.r(ALNUM, 32))
    add("mnemonic", "mnemonic: {0}", g.words(6))
    # --- INI / TOML / .env / properties / other config files ---------------------------------
    add("ini", "[client]\nuser = root\npassword = {0}\n", pw())
    add("ini-auth_token", "auth_token = {0}", g.r(HEX, 40))
    add("toml-quoted", 'api_key = "{0}"', g.r(ALNUM, 40))
    add("env-DB_PASS", "DB_PASS={0}", pw())
    add("env-SMTP_PASS", "SMTP_PASS={0}", pw())
    add("env-SECRET_KEY_BASE", "SECRET_KEY_BASE={0}", g.r(HEX, 64))
    b64 = base64.b64encode(g.r(ALNUM, 30).encode()).decode()
    add("env-JWT_SECRET_B64", "JWT_SECRET_B64={0}", b64)
    add("env-lower", "db_password={0}", pw())
    add("env-export", "export AWS_SESSION_TOKEN={0}", g.r(B64, 80))
    add("env-PGPASSWORD", "PGPASSWORD={0} psql -h db -U app app", pw())
    add("properties", "spring.datasource.password={0}", pw())
    add("netrc", "machine api.example.com\n  login bob\n  password {0}\n", g.r(HEX, 40))
    add("netrc-inline", "machine git.example.com login bob password {0}", pw())
    add("pgpass", "db.internal:5432:appdb:appuser:{0}", pw())
    add(
        "docker-config",
        '{"auths": {"https://index.docker.io/v1/": {"auth": "{0}"}}}',
        base64.b64encode(f"bob:{g.password()}".encode()).decode(),
    )
    add("kube-token", "users:\n- name: admin\n  user:\n    token: {0}\n", g.r(URLSAFE, 60))
    add(
        "kube-key-data",
        "    client-key-data: {0}",
        "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQo" + g.r(B64, 80),
    )
    add("xml-element", "<server><id>corp</id><password>{0}</password></server>", pw())
    add("xml-add-key", '<add key="ClearTextPassword" value="{0}" />', pw())
    add("pypirc", "[pypi]\nusername = __token__\npassword = {0}\n", "pypi-" + g.r(URLSAFE, 60))
    add("npmrc", "//registry.npmjs.org/:_authToken={0}", g.r(URLSAFE, 36))
    add("ruby-hash", 'config = { :password => "{0}" }', pw())
    add("php-array", "'db_password' => '{0}',", pw())
    add("go-assign", 'apiKey := "{0}"', g.r(ALNUM, 32))
    add("js-object", "const cfg = { apiSecret: '{0}' };", g.r(ALNUM, 32))
    add("redis-conf", "bind 0.0.0.0\nrequirepass {0}\n", pw())
    add("prose-is", "fyi the password is {0} for now", pw())
    add("sql-alter", "ALTER USER app WITH PASSWORD '{0}';", pw())
    add("sql-identified", "CREATE USER 'app'@'%' IDENTIFIED BY '{0}';", pw())
    add("ru-key", "пароль: {0}", pw())
    add("zh-key-fullwidth-colon", "密码：{0}", pw())
    add("de-key", "Passwort: {0}", pw())
    add("es-key", "contraseña = {0}", pw())
    # --- command lines ------------------------------------------------------------------------
    add("mysql-p", "mysql -u root -p{0} app", pw())
    add("mysql-password-quoted", "mysql --password='{0}' app", pw())
    add("auth-token-flag", "tool deploy --auth-token {0} --region eu", g.r(URLSAFE, 40))
    add("client-secret-flag", "az ad sp create --client-secret={0}", g.r(URLSAFE, 34))
    add("curl-u", "curl -u admin:{0} https://api.example.com/v1", pw())
    add("sshpass", "sshpass -p '{0}' ssh deploy@host", pw())
    add("redis-cli", "redis-cli -h cache -a {0} ping", pw())
    add("docker-login", "docker login -u bob -p {0} registry.example.com", pw())
    add("htpasswd", "htpasswd -b /etc/nginx/.htpasswd admin {0}", pw())
    add("sqlcmd", "sqlcmd -S db -U sa -P {0} -Q 'select 1'", pw())
    add("ldapsearch", "ldapsearch -x -D cn=admin,dc=ex -w {0} -b dc=ex", pw())
    add("openssl-passout", "openssl pkcs12 -export -passout pass:{0} -out k.p12", pw())
    add("keytool", "keytool -importkeystore -srcstorepass {0} -destkeystore k.jks", pw())
    add("password-stdin", "echo {0} | docker login -u bob --password-stdin", pw())
    add("wget", "wget --http-password={0} https://files.example.com/a", pw())
    add("psql-url", 'psql "postgresql://app:{0}@db:5432/app"', pw())
    add("mongosh", "mongosh -u admin -p {0} --authenticationDatabase admin", pw())
    add("smbclient", "smbclient //fs/share -U bob%{0}", pw())
    add("aws-configure", "aws configure set aws_secret_access_key {0}", g.r(B64, 40))
    add("ssh-keygen", "ssh-keygen -t ed25519 -N '{0}' -f deploy_key", pw())
    add("mosquitto", "mosquitto_pub -h broker -u iot -P {0} -t t -m on", pw())
    # --- credentials in URLs ------------------------------------------------------------------
    add("url-token-user", "git remote add o https://{0}@github.com/org/repo.git", g.r(HEX, 40))
    add("url-ssh", "ssh://deploy:{0}@host:22/srv", pw())
    add("url-smtp", "smtp://mailer:{0}@smtp.example.com:587", pw())
    add("url-mqtt", "mqtt://iot:{0}@broker:1883", pw())
    add("url-amqp", "amqp://guest:{0}@rabbit:5672/", pw())
    add("url-ftp", "ftp://bob:{0}@files.example.com/pub", pw())
    add("url-sentry-dsn", "SENTRY_DSN=https://{0}@o123456.ingest.sentry.io/789", g.r(HEX, 32))
    add(
        "url-x-access-token",
        "git clone https://x-access-token:{0}@github.com/o/r",
        "ghs_" + g.r(ALNUM, 36),
    )
    add("url-query", "GET https://api.example.com/v1/items?access_token={0}&page=2", g.r(ALNUM, 40))
    # --- key blocks ---------------------------------------------------------------------------
    for kind in ("RSA ", "EC ", "OPENSSH ", "ENCRYPTED ", "DSA "):
        body = g.pem_body()
        add(
            f"pem-{kind.strip().lower()}",
            f"-----BEGIN {kind}PRIVATE KEY-----\n"
            + "\n".join(f"{{{i}}}" for i in range(len(body)))
            + f"\n-----END {kind}PRIVATE KEY-----",
            *body,
        )
    body = ["lQOYBF" + g.r(B64, 58) for _ in range(4)]
    add(
        "pgp-private",
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\n"
        + "\n".join(f"{{{i}}}" for i in range(4))
        + "\n="
        + g.r(B64, 4)
        + "\n-----END PGP PRIVATE KEY BLOCK-----",
        *body,
    )
    body = g.pem_body(3)
    add(
        "pem-no-end",
        "here is half of it:\n-----BEGIN RSA PRIVATE KEY-----\n"
        + "\n".join(f"{{{i}}}" for i in range(3))
        + "\n",
        *body,
    )
    body = g.pem_body(3)
    add(
        "pem-json-escaped",
        '{"type": "service_account", "private_key": '
        '"-----BEGIN PRIVATE KEY-----'
        + "\\n".join(["", "{0}", "{1}", "{2}"])
        + '\\n-----END PRIVATE KEY-----\\n"}',
        *body,
    )
    body = [g.r(B64, 64) for _ in range(3)]
    add(
        "putty",
        "PuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\nComment: k\nPublic-Lines: 1\n"
        "AAAAB3NzaC1yc2E\nPrivate-Lines: 3\n{0}\n{1}\n{2}\nPrivate-MAC: " + g.r(HEX, 40),
        *body,
    )
    # --- vendor prefixes ----------------------------------------------------------------------
    vendors = {
        "stripe-webhook": "whsec_" + g.r(ALNUM, 32),
        "shopify": "shpat_" + g.r(HEX, 32),
        "mailgun": "key-" + g.r(HEX, 32),
        "twilio": "SK" + g.r(HEX, 32),
        "anthropic": "sk-ant-api03-" + g.r(URLSAFE, 93) + "AA",
        "age": "AGE-SECRET-KEY-1"
        + "".join(g.rng.choice("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L") for _ in range(58)),
        "google-oauth-secret": "GOCSPX-" + g.r(URLSAFE, 28),
        "vault": "hvs." + g.r(URLSAFE, 95),
        "slack-config": "xoxe.xoxp-1-" + g.r(ALNUM, 160),
        "linear": "lin_api_" + g.r(ALNUM, 40),
        "sentry-user": "sntryu_" + g.r(HEX, 64),
        "planetscale": "pscale_pw_" + g.r(URLSAFE, 43),
        "gitlab": "glpat-" + g.r(URLSAFE, 20),
        "rubygems": "rubygems_" + g.r(HEX, 48),
        "postman": "PMAK-" + g.r(HEX, 24) + "-" + g.r(HEX, 34),
        "newrelic": "NRAK-" + g.r(UP + DIG, 27),
        "tailscale": "tskey-auth-" + g.r(ALNUM, 12) + "-" + g.r(ALNUM, 30),
        "pinecone": "pcsk_" + g.r(ALNUM, 60),
        "square": "sq0csp-" + g.r(URLSAFE, 43),
        "dynatrace": "dt0c01." + g.r(UP + DIG, 24) + "." + g.r(UP + DIG, 64),
        "doppler": "dp.pt." + g.r(ALNUM, 43),
        "langsmith": "lsv2_pt_" + g.r(HEX, 32) + "_" + g.r(HEX, 10),
        "digitalocean": "dop_v1_" + g.r(HEX, 64),
        "npm": "npm_" + g.r(ALNUM, 36),
        "huggingface": "hf_" + g.r(ALNUM, 34),
        "aws-access-key": "AKIA" + g.r(UP + "234567", 16),
    }
    for name, secret in vendors.items():
        add(f"vendor-{name}", "use this: {0} (do not share)", secret)
    add(
        "azure-account-key",
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={0};"
        "EndpointSuffix=core.windows.net",
        g.r(B64, 86) + "==",
    )
    add(
        "azure-sas",
        "https://acct.blob.core.windows.net/c/f?sv=2022-11-02&se=2030-01-01&sig={0}",
        g.r(ALNUM, 30) + "%2B" + g.r(ALNUM, 10) + "%3D",
    )
    add(
        "discord-bot",
        "bot token {0}",
        "MT" + g.r(ALNUM, 24) + "." + g.r(URLSAFE, 6) + "." + g.r(URLSAFE, 38),
    )
    # --- escaped JSON ---------------------------------------------------------------------------
    add("escaped-json", '{"cmd": "{\\"password\\": \\"{0}\\"}"}', pw())
    add("escaped-json-api_key", '"{\\"api_key\\":\\"{0}\\",\\"x\\":1}"', g.r(ALNUM, 32))
    # --- disguises ------------------------------------------------------------------------------
    body = g.r(ALNUM, 36)
    add("fullwidth-ghp", "token ｇｈｐ＿{0} here", body)
    body = g.r(URLSAFE, 90)
    add("cyrillic-sk-ant", "key \u0455k-ant-api03-{0} ok", body)
    body = g.r(ALNUM, 40)
    add("greek-xoxb", "x\u03bfxb-123456789012-{0}", body)
    a, b = g.r(ALNUM, 18), g.r(ALNUM, 18)
    add("zero-width-in-token", "ghp_{0}\u200b{1}", a, b)
    a, b = g.r(URLSAFE, 24), g.r(URLSAFE, 24)
    add("soft-hyphen-in-token", "sk-proj-{0}\u00ad{1}", a, b)
    add("fullwidth-colon", "password：{0}", pw())
    add("cyrillic-key", "p\u0430ssword: {0}", pw())
    add("zero-width-key", "DB_PASS\u200b={0}", pw())
    return out
