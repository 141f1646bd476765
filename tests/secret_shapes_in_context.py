"""Secret shapes in context (issues 33 and 34), by family, generated at test time: each is a
context from the formats' own documents (form bodies, Digest and SigV4 headers, Kubernetes and
ECS env entries, client library calls, the AWS CLI's prompts, JWKs, vendors' recovery codes and
app passwords, "the password is X" in other languages) plus a seeded random secret (no real
secret is stored here).

``shapes()`` returns ``Shape4(family, text, secrets)``: no secret may survive redaction.
``READABLE`` holds references and public identifiers that must come out unchanged (the 15 of
issue 34 and the next ones like them).
"""

from __future__ import annotations

import random

from secret_shapes import ALNUM, DIG, LOW, UP, URLSAFE
from secret_shapes import SYMBOLS as SYM
from secret_shapes import Shape as Shape4


class _Gen:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def r(self, alphabet: str, n: int) -> str:
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    def pw(self) -> str:
        """A password a person chose: letters, a digit and a symbol."""
        return self.r(UP, 2) + self.r(LOW, 5) + self.r(DIG, 3) + self.r(SYM, 1) + self.r(LOW, 2)

    def aws(self) -> str:
        while True:  # upstream's test: both cases, a digit or symbol, a letter beyond hex
            v = self.r(ALNUM + "/+", 40)
            if (
                any(c.isupper() for c in v)
                and any(c.islower() for c in v)
                and any(c.isdigit() or c in "/+" for c in v)
                and any(c in "GHIJKLMNOPQRSTUVWXYZghijklmnopqrstuvwxyz/+" for c in v)
            ):
                return v  # fmt: skip


# "the password is X" in each language: (family, template); {s} is the password.
LANGUAGES = (
    ("fr", "Le mot de passe est {s} pour le wifi"),
    ("fr-colon", "mot de passe : {s}"),
    ("de", "Das Passwort lautet: {s}"),
    ("de-words", "Das Passwort für den Server ist {s}."),
    ("de-kennwort", "Kennwort ist {s}"),
    ("es", "La contraseña es {s}"),
    ("es-ascii", "la contrasena es {s}"),
    ("pt", "A senha é {s}"),
    ("it", "La password è {s}"),
    ("nl", "Het wachtwoord is {s}"),
    ("pl", "Hasło to {s}"),
    ("cs", "Heslo je {s}"),
    ("sv", "Lösenordet är {s}"),
    ("no", "Passordet er {s}"),
    ("da", "Adgangskode er {s}"),
    ("fi", "Salasana on {s}"),
    ("hu", "A jelszó: {s}"),
    ("tr", "Şifre: {s}"),
    ("ru", "Пароль: {s}"),
    ("ru-bare", "пароль {s}"),
    ("ru-copula", "пароль это {s}"),
    ("uk", "гасло: {s}"),
    ("el", "ο κωδικός είναι {s}"),
    ("he", "הסיסמה היא {s}"),
    ("ar", "كلمة المرور هي {s}"),
    ("hi", "पासवर्ड है {s}"),
    ("ja", "パスワードは{s}です"),
    ("ja-colon", "パスワード：{s}"),
    ("zh", "密码是{s}"),
    ("zh-colon", "密码：{s}"),
    ("zh-tw", "密碼是 {s}"),
    ("ko", "비밀번호는 {s}입니다"),
    ("vi", "mật khẩu là {s}"),
    ("id", "kata sandi adalah {s}"),
    ("ms", "kata laluan ialah {s}"),
    ("th", "รหัสผ่านคือ {s}"),
)  # fmt: skip


def shapes(seed: int = 20261206) -> list[Shape4]:  # noqa: PLR0915 - a table, one line per shape
    g = _Gen(seed)
    out: list[Shape4] = []

    def add(family: str, template: str, *secrets: str) -> None:
        text = template
        for s in secrets:
            text = text.replace("{s}", s, 1)
        out.append(Shape4(family, text, secrets))

    # --- form bodies and query strings (issue 33.4) ------------------------------------------
    for key in ("client_secret", "app_secret", "private_key", "credential", "authorization",
                "sig", "x-api-key", "jwt", "access_token", "api_key"):  # fmt: skip
        add(
            f"form-{key}", f"grant_type=client_credentials&{key}={{s}}&scope=read", g.r(URLSAFE, 28)
        )
        add(
            f"query-{key}",
            f"GET https://api.example.com/v1/cb?x=1&{key}={{s}} HTTP/1.1",
            g.r(URLSAFE, 28),
        )
    add("form-first", "body: client_secret={s}&grant_type=client_credentials", g.r(URLSAFE, 30))
    add("form-percent", "a=1&client%5Fsecret={s}&b=2", g.r(URLSAFE, 26))
    add("form-percent-dash", "a=1&x%2Dapi%2Dkey={s}&b=2", g.r(URLSAFE, 26))
    add("form-zwsp", "a=1&client\u200b_secret={s}&b=2", g.r(URLSAFE, 26))
    add("form-soft-hyphen", "a=1&app\u00ad_secret={s}&b=2", g.r(URLSAFE, 26))
    add("form-quoted", 'a=1&client_secret="{s}"&b=2', g.r(URLSAFE, 26))
    add("form-single-quoted", "a=1&private_key='{s}'&b=2", g.r(URLSAFE, 26))
    # --- authorization header parameters ---------------------------------------------------
    add(
        "digest-response",
        'Authorization: Digest username="bob", realm="api", nonce="'
        + g.r("0123456789abcdef", 32)
        + '", uri="/x", qop=auth, nc=00000001, cnonce="{s}", '
        'response="{s}", opaque="' + g.r("0123456789abcdef", 32) + '"',
        g.r("0123456789abcdef", 16),
        g.r("0123456789abcdef", 32),
    )
    add(
        "aws4-signature",
        "Authorization: AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20260101/"
        "us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-date, Signature={s}",
        g.r("0123456789abcdef", 64),
    )
    # --- a bare AWS secret access key --------------------------------------------------------
    add("aws-bare", "here it is: {s}", g.aws())
    add("aws-bare-quoted", 'secret = "{s}"', g.aws())
    add("aws-bare-table", "| prod | {s} |", g.aws())
    add(
        "aws-configure",
        "$ aws configure\nAWS Access Key ID [None]: AKIA"
        + g.r(UP + "234567", 16)
        + "\nAWS Secret Access Key [None]: {s}\n"
        "Default region name [None]: us-east-1",
        g.aws(),
    )
    add(
        "aws-configure-masked-default", "AWS Secret Access Key [****************WXYZ]: {s}", g.aws()
    )
    # --- OpenClaw's media token, key material, JSON values -----------------------------------
    add(
        "mms-token-url",
        "GET /media/a.jpg?__openclaw_mms_token_" + g.r(LOW + DIG, 8) + "={s}",
        g.r(URLSAFE, 32),
    )
    add("mms-token-assign", "__openclaw_mms_token_" + g.r(LOW + DIG, 8) + "={s}", g.r(URLSAFE, 32))
    add("key-material-yaml", "key_material: {s}", g.r(URLSAFE, 32))
    add("key-material-json", '{"key_material": "{s}"}', g.r(URLSAFE, 32))
    add("json-apikey", '{"apiKey": "AIza{s}"}', g.r(URLSAFE, 35))
    # --- name/value environment pairs (issue 34.1) -------------------------------------------
    add(
        "k8s-env",
        "env:\n  - name: DB_PASSWORD\n    value: {s}\n  - name: LOG_LEVEL\n    value: debug",
        g.pw(),
    )
    add("k8s-env-quoted", 'env:\n- name: API_TOKEN\n  value: "{s}"', g.r(ALNUM, 32))
    add("k8s-env-single", "        - name: STRIPE_SECRET_KEY\n          value: '{s}'", g.pw())
    add("ecs-json", '"environment": [{"name": "DB_PASSWORD", "value": "{s}"}]', g.pw())
    add("ecs-json-reversed", '{"value": "{s}", "name": "POSTGRES_PASSWORD"}', g.pw())
    add("compose-list", "environment:\n  - name: MYSQL_ROOT_PASSWORD\n    value: {s}", g.pw())
    add("aws-cli-pair", "aws ecs ... --overrides Name=DB_PASSWORD,Value={s}", g.pw())
    add(
        "terraform-pair",
        '  env {\n    name  = "JWT_SECRET"\n    value = "{s}"\n  }',
        g.r(ALNUM, 40),
    )
    # --- a password as a call's positional argument ------------------------------------------
    add("call-connect", 'conn = pymysql.connect("db", "admin", "{s}")', g.pw())
    add("call-psycopg", 'psycopg2.connect(host, "app", "{s}")', g.pw())
    add("call-login", 'smtp.login(user, "{s}")', g.pw())
    add("call-login-email", "server.login('me@example.com', '{s}')", g.pw())
    add("call-jdbc", 'DriverManager.getConnection(url, "sa", "{s}");', g.pw())
    add("call-basic-auth", 'requests.get(url, auth=HTTPBasicAuth("bob", "{s}"))', g.pw())
    add("call-auth-tuple", 'requests.get(url, auth=("bob", "{s}"))', g.pw())
    add("call-ldap", 'l.simple_bind_s("cn=admin,dc=example,dc=org", "{s}")', g.pw())
    add("call-dotnet", 'new NetworkCredential("svc", "{s}")', g.pw())
    add("call-mongo", 'MongoClient("db.internal", 27017, "root", "{s}")', g.pw())
    # --- other languages ----------------------------------------------------------------------
    for lang, template in LANGUAGES:
        add(f"lang-{lang}", template, g.pw())
    # --- JWK private members ----------------------------------------------------------------
    n = g.r(URLSAFE, 86)
    add(
        "jwk-rsa",
        '{"kty": "RSA", "n": "' + n + '", "e": "AQAB", "d": "{s}", "p": "{s}", '
        '"q": "{s}", "dp": "{s}", "dq": "{s}", "qi": "{s}"}',
        *(g.r(URLSAFE, 43) for _ in range(6)),
    )
    add(
        "jwk-ec",
        '{"kty":"EC","crv":"P-256","x":"'
        + g.r(URLSAFE, 43)
        + '","y":"'
        + g.r(URLSAFE, 43)
        + '","d":"{s}"}',
        g.r(URLSAFE, 43),
    )
    add("jwk-oct", '{\n  "kty": "oct",\n  "k": "{s}"\n}', g.r(URLSAFE, 43))
    # --- recovery and backup codes, app passwords -------------------------------------------
    hexd = "0123456789abcdef"
    add(
        "codes-github",
        "Your recovery codes:\n{s}\n{s}\n{s}\n{s}",
        *(g.r(hexd, 5) + "-" + g.r(hexd, 5) for _ in range(4)),
    )
    add(
        "codes-github-bullets",
        "Recovery codes\n- {s}\n- {s}\n- {s}",
        *(g.r(hexd, 5) + "-" + g.r(hexd, 5) for _ in range(3)),
    )
    add(
        "codes-google",
        "Backup codes: {s}, {s}, {s}",
        *(g.r(DIG, 4) + " " + g.r(DIG, 4) for _ in range(3)),
    )
    add("codes-one-time", "one-time codes:\n  1. {s}\n  2. {s}", g.r(DIG, 8), g.r(DIG, 8))
    add("codes-inline", "my 2FA backup code is {s}", g.r(DIG, 8))
    add("app-password-google", "your app password is {s}", " ".join(g.r(LOW, 4) for _ in range(4)))
    add("app-password-apple", "App-specific password: {s}", "-".join(g.r(LOW, 4) for _ in range(4)))
    return out


# References and public identifiers: nothing to mask (issue 34's 15, and the next ones).
READABLE = (
    "SecretId: arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db/password-AbC1dE",
    "aws secretsmanager get-secret-value --secret-id "
    "arn:aws:secretsmanager:eu-west-1:123456789012:secret:api-token-x9Y8z7",
    'secret_arn = "arn:aws:secretsmanager:us-east-1:123456789012:secret:prod-db-creds-Ab12Cd"',
    "SECRET_ARN=arn:aws:secretsmanager:us-east-1:123456789012:secret:prod-db-creds-Ab12Cd",
    "gcloud secrets versions access latest --secret=projects/acme-prod/secrets/stripe-api-key",
    "secret: projects/123456789/secrets/api-key/versions/3",
    "DB_PASSWORD_SECRET=projects/acme/secrets/db-password/versions/latest",
    "STRIPE_PUBLISHABLE_KEY=pk_live_51H8xYzAbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "NEXT_PUBLIC_STRIPE_KEY=pk_test_51H8xYzAbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "$password = Secret::get('db_password');",
    "password = Secret::get('database.password')",
    "DB_PASSWORD=${DB_PASSWORD:?DB_PASSWORD must be set}",
    "token: ${API_TOKEN:?set API_TOKEN first}",
    'export API_KEY="${API_KEY:?API_KEY is required}"',
    "const client = new OpenAI({ apiKey: config.apiKey });",
    "apiKey: config.apiKey,",
    "api_key=self.api_key",
    "password=getpass.getpass()",
    'print(f"token={token}")',
    'url = f"https://api.x.com/?token={token}"',
    "securitySchemes: { bearerAuth: { type: http, scheme: bearer } }",
    "bearerAuth: type: http",
    "components:\n  securitySchemes:\n    bearerAuth:\n      type: http\n      scheme: bearer",
    "- name: LOG_LEVEL\n  value: info",
    "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: db-secret\n"
    "        key: password",
    '{"name": "DB_PASSWORD", "value": "${DB_PASSWORD}"}',
    'connect("localhost", 5432)',
    "login(user, password)",
    'client.login(username, os.environ["PASSWORD"])',
    "le mot de passe expire demain",
    "Das Passwort ist zu kurz.",
    "La contraseña es incorrecta",
    "パスワードを忘れました",
    "Your recovery codes are in the vault.",
    "Generate an app password in your account settings.",
    '{"kty": "RSA", "n": "0vx7agoebGcQSuuPiLJXZptN9nndrQ", "e": "AQAB"}',
    "x-pomerium-jwt-assertion:\nnext line here",
    "X-OpenClaw-Token:\nnext line here",
    "commit 3f2a9c1e8b7d6f5a4c3b2a1908e7d6c5b4a39281 fixed the key rotation",
)
