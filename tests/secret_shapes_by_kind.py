"""Secret shapes by kind (issue 23 part 3: config and auth files, chat tokens, wallets, Wi-Fi,
CSV exports, presigned URLs, disguises), generated at test time: each is a
documented prefix or context plus a seeded random body (no real secret is stored here).

``shapes()`` returns ``Shape3(kind, family, text, secrets, kept)``: ``secrets`` must never
survive redaction; ``kept`` (the readable part of a multi-part token, the words around a value)
must. ``references()`` are texts that hold no secret and must come out unchanged.
"""

from __future__ import annotations

import base64
import hashlib
import json
import uuid
from typing import NamedTuple

import secret_shapes
from secret_shapes import ALNUM, B64, DIG, HEX, LOW, UP, URLSAFE

B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
# A few words of the BIP39 English list (a wallet's recovery phrase is 12 or 24 of them).
BIP39 = ("abandon ability absorb abstract absurd access acoustic actress adapt addict admit "
         "adult advice aerobic afford agent alarm album alcohol alien alpha already amateur "
         "amazing amused anchor ancient anger animal ankle announce antenna anxiety apology "
         "arctic arena armed armor arrest artefact asthma athlete atom auction august avocado "
         "bamboo banana barrel basket battle beach believe bicycle blanket blossom bonus "
         "brisk bronze bubble buddy burger butter cabbage cactus canal canvas carbon casino "
         "catalog cement cereal chalk chimney cinnamon citizen claw clinic coconut comic "
         "cousin coyote crater cricket cruise cupboard curtain cushion").split()  # fmt: skip


class Shape3(NamedTuple):
    kind: str
    family: str
    text: str
    secrets: tuple[str, ...]
    kept: tuple[str, ...]


def b58encode(raw: bytes) -> str:
    n = int.from_bytes(raw, "big")
    out = ""
    while n:
        n, r = divmod(n, 58)
        out = B58[r] + out
    return "1" * (len(raw) - len(raw.lstrip(b"\0"))) + out


def b58check(payload: bytes) -> str:
    check = hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4]
    return b58encode(payload + check)


class _Gen(secret_shapes._Gen):
    def pw(self, n: int = 14) -> str:
        core = self.r(ALNUM, n - 2)
        return core[:5] + self.rng.choice("!#%*+.@^_~") + core[5:] + self.rng.choice("!#%*")

    def raw(self, n: int) -> bytes:
        return bytes(self.rng.getrandbits(8) for _ in range(n))

    def uuid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def words(self, n: int) -> str:
        return " ".join(self.rng.choice(BIP39) for _ in range(n))


def shapes(seed: int = 20261201) -> list[Shape3]:  # noqa: PLR0915 - a table, one line per shape
    g = _Gen(seed)
    out: list[Shape3] = []

    def add(kind: str, family: str, template: str, secrets: tuple[str, ...] | str,
            kept: tuple[str, ...] = ()) -> None:  # fmt: skip
        secrets = (secrets,) if isinstance(secrets, str) else secrets
        text = template
        for i, s in enumerate(secrets):
            text = text.replace(f"{{{i}}}", s)
        out.append(Shape3(kind, f"{kind}-{family}", text, secrets, kept))

    def tok(kind: str, family: str, prefix: str, body: str, tmpl: str = "use {p}{0} now") -> None:
        add(kind, family, tmpl.replace("{p}", prefix), body, (prefix,))

    # --- key lists and names with a secret word inside -----------------------------------------
    add(
        "keylist",
        "host-user-password",
        "Host: db.prod.internal\nUser: admin\nPassword: {0}\n",
        g.pw(),
        ("Host: db.prod.internal", "User: admin"),
    )
    add(
        "keylist",
        "word-password",
        "Host: 10.0.4.7\nPort: 5432\nUser: postgres\nPassword: {0}\nDatabase: app",
        "Summer2024",
        ("Database: app",),
    )
    add("keylist", "bullets", "- Host: smtp.example.net\n- User: mailer\n- Pass: {0}\n", g.pw())
    add("keylist", "bold", "**Server:** vpn.corp\n**Username:** jdoe\n**Password:** {0}", g.pw())
    add("keylist", "login-pwd", "Login: root\nPwd: {0}\nPort: 22", g.pw(), ("Port: 22",))
    add("keylist", "secret-key", "Access Key: AKIAEXAMPLE\nSecret Key: {0}", g.r(B64, 40))
    add(
        "keylist", "table", "| Host | User | Password |\n|---|---|---|\n| db1 | app | {0} |", g.pw()
    )
    for name in ("JWT_SECRET_B64URL", "APP_SECRET_SALT", "SESSION_SECRET_SIGNING", "NEXTAUTH_SECRET"
                 "_BASE64_V2", "OAUTH_CLIENT_SECRET_ENCODED", "DB_PASSWORD_ENCRYPTED",
                 "API_TOKEN_PRIMARY", "SECRET_PEPPER"):  # fmt: skip
        add(
            "envname",
            name.lower(),
            f"{name}={{0}}",
            base64.b64encode(g.raw(33)).decode(),
            (f"{name}=",),
        )
    # --- chat platforms ----------------------------------------------------------------------
    d = g.r(DIG, 10)
    tok("chat", "slack-client", f"xoxc-{d}-{g.r(DIG, 12)}-{g.r(DIG, 13)}-", g.r(HEX, 64))
    tok("chat", "slack-cookie", "xoxd-", g.r(ALNUM, 60) + "%2B" + g.r(ALNUM, 40) + "%3D")
    tok("chat", "twitch", "oauth:", g.r(LOW + DIG, 30), "twitch irc: PASS oauth:{0}")
    tok(
        "chat",
        "twitter-bearer",
        "A" * 22,
        g.r(ALNUM, 40) + "%2F" + g.r(ALNUM, 40),
        "got {p}{0} from the portal",
    )
    tok(
        "chat",
        "discord-ptb",
        "https://ptb.discord.com/api/webhooks/1190000000000000000/",
        g.r(URLSAFE, 68),
        "hook {p}{0}",
    )
    tok(
        "chat",
        "discord-canary",
        "https://canary.discord.com/api/v10/webhooks/1190000000000000001/",
        g.r(URLSAFE, 68),
        "hook {p}{0}",
    )
    tok(
        "chat",
        "mattermost-hook",
        "https://chat.example.org/hooks/",
        g.r(LOW + DIG, 26),
        "curl -X POST {p}{0} -d @msg.json",
    )
    add(
        "chat",
        "rocketchat-hook",
        "https://rocket.example.org/hooks/{0}/{1}",
        (g.r(ALNUM, 24), g.r(ALNUM, 48)),
        ("https://rocket.example.org/hooks/",),
    )
    tok("chat", "feishu-hook", "https://open.feishu.cn/open-apis/bot/v2/hook/", g.uuid())
    tok("chat", "lark-hook", "https://open.larksuite.com/open-apis/bot/v2/hook/", g.uuid())
    tok(
        "chat",
        "zapier-hook",
        f"https://hooks.zapier.com/hooks/catch/{g.r(DIG, 7)}/",
        g.r(LOW + DIG, 7) + "/",
        "POST {p}{0}",
    )
    tok("chat", "ifttt-key", "https://maker.ifttt.com/trigger/door/with/key/", g.r(URLSAFE, 22))
    add(
        "chat",
        "google-chat-hook",
        "https://chat.googleapis.com/v1/spaces/AAAAx3Hd_QG/messages?key=AIzaSy{0}&token={1}",
        (g.r(URLSAFE, 33), g.r(URLSAFE, 43) + "%3D"),
    )
    add(
        "chat",
        "zuliprc",
        "[api]\nemail=bot@example.zulipchat.com\nkey={0}\nsite=https://example.zulipchat.com",
        g.r(ALNUM, 32),
    )
    add("chat", "slack-signing", "Slack signing secret {0}", g.r(HEX, 32), ("Slack",))
    add("chat", "telegram-secret-token", "X-Telegram-Bot-Api-Secret-Token: {0}", g.r(URLSAFE, 40))
    # --- file sharing ------------------------------------------------------------------------
    tok("files", "dropbox-short", "sl.", "B" + g.r(URLSAFE, 137), "DROPBOX={p}{0}")
    tok("files", "dropbox-short-u", "sl.u.", g.r(URLSAFE, 150))
    add(
        "files",
        "dropbox-long",
        "dropbox token {0}",
        g.r(LOW + DIG, 11) + "AAAAAAAAAA" + g.r(LOW + DIG + "_-", 43),
    )
    tok(
        "files",
        "backblaze-app-key",
        "K005",
        g.r(ALNUM + "/+", 27),
        f"b2 authorize-account {g.r(HEX, 12)}0000000004 {{p}}{{0}}",
    )
    add("files", "box-dev-token", "box developer token: {0}", g.r(ALNUM, 32))
    add(
        "files",
        "nextcloud-app-pw",
        "nextcloud app password is {0}",
        "-".join(g.r(ALNUM, 5) for _ in range(5)),
    )
    # --- AI developer services ---------------------------------------------------------------
    for fam, prefix, body in (
        ("nvidia", "nvapi-", g.r(URLSAFE, 64)), ("together", "tgp_v1_", g.r(URLSAFE, 43)),
        ("cerebras", "csk-", g.r(LOW + DIG, 48)), ("llamacloud", "llx-", g.r(ALNUM, 48)),
        ("jina", "jina_", g.r(HEX, 32) + g.r(ALNUM, 28)), ("e2b", "e2b_", g.r(HEX, 40)),
        ("voyage", "pa-", g.r(URLSAFE, 43)), ("anyscale", "esecret_", g.r(LOW + DIG, 26)),
        ("runpod", "rpa_", g.r(UP + DIG, 44)), ("modal-secret", "as-", g.r(ALNUM, 22)),
        ("modal-id", "ak-", g.r(ALNUM, 22)), ("vercel", "vcp_", g.r(ALNUM, 56)),
    ):  # fmt: skip
        tok("ai", fam, prefix, body, "key {p}{0} ok")
    for fam, prefix, body in (  # covered families: masked whole, as upstream masks them
        ("langfuse", "sk-lf-", g.uuid()), ("openai-admin", "sk-admin-", g.r(URLSAFE, 80)),
        ("anthropic-admin", "sk-ant-admin01-", g.r(URLSAFE, 86) + "AA"),
    ):  # fmt: skip
        add("ai", fam, "key {0} ok", prefix + body)
    add("ai", "cohere-env-spaced", "COHERE_API_KEY {0}", g.r(ALNUM, 40))
    # --- Azure DevOps (2024 format: 52 random, then a fixed signature) -----------------------
    for i in range(2):
        rnd = g.r(ALNUM, 52)
        tail = f"JQQJ9{g.r(DIG, 1)}{g.r(UP, 2)}ACAAAAAAAAAAAAASAZDO{g.r(ALNUM, 4)}"
        add(
            "azdo",
            f"pat-{i}",
            "the new PAT {0}" + tail + " expires in 30 days"
            if i
            else "AZURE_DEVOPS_PAT " + "{0}" + tail,
            rnd,
            (tail,),
        )
    # --- cloud console credential files ------------------------------------------------------
    akid, sak = "AKIA" + g.r(UP + "234567", 16), g.r(B64, 40)
    add("csv", "aws-keys", f"Access key ID,Secret access key\n{akid},{{0}}\n", sak)
    add(
        "csv",
        "aws-user",
        "User name,Password,Access key ID,Secret access key,Console login link"
        f"\nci-bot,{{0}},AKIA{g.r(UP + '234567', 16)},{{1}},https://1234.signin.aws.amazon.com/"
        "console",
        (g.pw(), g.r(B64, 40)),
        ("ci-bot", "Console login link"),
    )
    add(
        "csv",
        "alibaba",
        f"AccessKey ID,AccessKey Secret\nLTAI{g.r(ALNUM, 20)},{{0}}",
        g.r(ALNUM, 30),
    )
    add("csv", "tencent", f"SecretId,SecretKey\nAKID{g.r(ALNUM, 32)},{{0}}", g.r(ALNUM, 32))
    add(
        "csv",
        "huawei-quoted",
        f'"User Name","Access Key Id","Secret Access Key"\n"ops","{g.r(UP + DIG, 20)}","{{0}}"',
        g.r(ALNUM, 40),
        ('"ops"',),
    )
    add("csv", "tab", f"client_id\tclient_secret\n{g.uuid()}\t{{0}}", g.r(URLSAFE, 40))
    # --- wallets -------------------------------------------------------------------------------
    for fam, ver in (("xprv", b"\x04\x88\xad\xe4"), ("tprv", b"\x04\x35\x83\x94"),
                     ("zprv", b"\x04\xb2\x43\x0c")):  # fmt: skip
        key = b58check(ver + bytes([0]) + b"\0" * 8 + g.raw(32) + b"\0" + g.raw(32))
        add("wallet", fam, "extended key {0}", key)
    for fam in ("wif-compressed", "wif-compressed-2"):
        add("wallet", fam, "importprivkey {0} label", b58check(b"\x80" + g.raw(32) + b"\x01"))
    add(
        "wallet",
        "wif-prose",
        "the WIF is {0}, keep it offline",
        b58check(b"\x80" + g.raw(32) + b"\x01"),
    )
    add(
        "wallet",
        "phrase-is",
        "my wallet recovery phrase is {0}",
        g.words(12),
        ("my wallet recovery phrase is",),
    )
    add("wallet", "phrase-24", "Secret Recovery Phrase:\n{0}\n", g.words(24))
    add("wallet", "seed-phrase", "here is my seed phrase: {0}. please help", g.words(12))
    add("wallet", "metamask-hex", "import this key into MetaMask: {0}", g.r(HEX, 64))
    add("wallet", "metamask-0x", "MetaMask > Import account > private key 0x{0}", g.r(HEX, 64))
    add("wallet", "eth-key-prose", "my eth private key is {0} lol", g.r(HEX, 64))
    solana = json.dumps(list(g.raw(64))).replace(" ", "")
    add("wallet", "solana-json", "cat ~/.config/solana/id.json\n{0}", solana)
    add("wallet", "solana-spaced", "keypair: {0}", json.dumps(list(g.raw(64))))
    # --- Wi-Fi ---------------------------------------------------------------------------------
    add("wifi", "qr", "WIFI:T:WPA;S:HomeNet;P:{0};;", g.pw(), ("WIFI:T:WPA;S:HomeNet;P:",))
    add("wifi", "qr-order", "WIFI:S:Office 5G;T:WPA2;P:{0};H:false;;", g.pw())
    add("wifi", "psk-quoted", 'network={\n  ssid="Home"\n  psk="{0}"\n}', g.pw())
    add("wifi", "psk-hex", 'network={\n  ssid="Lab"\n  psk={0}\n}', g.r(HEX, 64))
    add("wifi", "hostapd", "wpa_psk={0}", g.r(HEX, 64))
    add("wifi", "nmcli", "nmcli dev wifi connect HomeNet password {0}", g.pw())
    add("wifi", "wpa_passphrase", "wpa_passphrase HomeNet {0} > wpa.conf", g.pw())
    # --- presigned URLs --------------------------------------------------------------------------
    add(
        "presigned",
        "s3",
        "https://b.s3.amazonaws.com/k.zip?X-Amz-Algorithm=AWS4-HMAC-SHA256&"
        f"X-Amz-Credential=AKIA{g.r(UP, 16)}%2F20261201%2Fus-east-1%2Fs3%2Faws4_request&"
        "X-Amz-Date=20261201T000000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&"
        "X-Amz-Signature={0}",
        g.r(HEX, 64),
        ("X-Amz-Expires=3600",),
    )
    add(
        "presigned",
        "s3-token",
        "https://b.s3.amazonaws.com/k?X-Amz-Security-Token={0}&X-Amz-Signature={1}",
        (g.r(ALNUM, 80) + "%2F" + g.r(ALNUM, 40), g.r(HEX, 64)),
    )
    add(
        "presigned",
        "gcs",
        "https://storage.googleapis.com/b/o?X-Goog-Algorithm=GOOG4-RSA-SHA256"
        "&X-Goog-Credential=sa%40p.iam.gserviceaccount.com%2F20261201%2Fauto%2Fstorage%2F"
        "goog4_request&X-Goog-Date=20261201T000000Z&X-Goog-Expires=900&X-Goog-SignedHeaders=host"
        "&X-Goog-Signature={0}",
        g.r(HEX, 512),
    )
    add(
        "presigned",
        "cloudfront",
        "https://d1.cloudfront.net/v.mp4?Expires=1800000000&Signature="
        "{0}&Key-Pair-Id=K2JCJMDEHXQW5F",
        g.r(URLSAFE + "~", 120),
        ("Key-Pair-Id=K2JCJMDEHXQW5F",),
    )
    # --- CLI logins that take a token ----------------------------------------------------------
    for fam, tmpl, secret in (
        ("gh-with-token", "echo {0} | gh auth login --with-token", g.r(HEX, 40)),
        ("gh-herestring", "gh auth login --with-token <<< '{0}'", g.r(HEX, 40)),
        ("npm-config", "npm config set //registry.npmjs.org/:_authToken {0}", g.uuid()),
        ("yarn-config", "yarn config set npmAuthToken {0}", g.r(URLSAFE, 36)),
        ("vercel", "vercel deploy --prod --token {0}", g.r(ALNUM, 24)),
        ("vercel-t", "vercel --scope acme -t {0}", g.r(ALNUM, 24)),
        ("heroku", "$ heroku auth:token\n{0}\n", g.uuid()),
        ("cargo", "cargo login {0}", "cio" + g.r(ALNUM, 32)),
        ("wandb", "wandb login {0}", g.r(HEX, 40)),
        ("ngrok", "ngrok config add-authtoken {0}", g.r(ALNUM, 27) + "_" + g.r(ALNUM, 21)),
        ("ngrok-old", "./ngrok authtoken {0}", g.r(ALNUM, 27) + "_" + g.r(ALNUM, 21)),
        ("snyk", "snyk auth {0}", g.uuid()),
        ("poetry", "poetry config pypi-token.testpypi {0}", g.r(URLSAFE, 48)),
        ("poetry-basic", "poetry config http-basic.corp ci {0}", g.pw()),
        ("vault", "vault login {0}", g.r(ALNUM, 26)),
        ("doppler", "doppler configure set token {0}", g.r(ALNUM, 44)),
        ("bw", "bw login ops@example.com {0}", g.pw()),
        ("bw-unlock", "bw unlock {0} --raw", g.pw()),
        ("cf", "cf login -a api.cf.example.com -u admin -p {0}", g.pw()),
        ("oc", "oc login https://api.ocp:6443 -u kubeadmin -p {0}", g.r(ALNUM, 5) + "-"
         + g.r(ALNUM, 5) + "-" + g.r(ALNUM, 5) + "-" + g.r(ALNUM, 5)),
        ("expo", "npx expo login -u dev -p {0}", g.pw()),
        ("codecov", "codecov -t {0}", g.uuid()),
        ("twine", "twine upload -u admin -p {0} dist/*", g.pw()),
    ):  # fmt: skip
        add("login", fam, tmpl, secret)
    # --- package managers' auth files ----------------------------------------------------------
    add(
        "authfile",
        "npmrc-auth",
        "//npm.corp/:_auth={0}\nalways-auth=true",
        base64.b64encode(f"ci:{g.pw()}".encode()).decode(),
    )
    add(
        "authfile",
        "npmrc-password",
        "//npm.corp/:username=ci\n//npm.corp/:_password={0}",
        base64.b64encode(g.pw().encode()).decode(),
    )
    add("authfile", "yarnrc-ident", 'npmAuthIdent: "ci:{0}"', g.pw())
    add(
        "authfile",
        "pypirc-colon",
        "[testpypi]\nrepository = https://test.pypi.org/legacy/\nusername: alice\npassword: {0}",
        g.pw(),
    )
    add(
        "authfile",
        "docker-identity",
        '{"auths": {"my.azurecr.io": {"identitytoken": "{0}"}}}',
        g.r(URLSAFE, 60),
    )
    add("authfile", "composer-github", '{"github-oauth": {"github.com": "{0}"}}', g.r(HEX, 40))
    add(
        "authfile",
        "composer-gitlab",
        '{"gitlab-token": {"gitlab.example.com": "{0}"}}',
        g.r(URLSAFE, 20),
    )
    add(
        "authfile",
        "composer-bearer",
        '{\n  "bearer": {\n    "repo.example.org": "{0}"\n  }\n}',
        g.r(ALNUM, 40),
    )
    add("authfile", "cargo-credentials", '[registry]\ntoken = "{0}"', "cio" + g.r(ALNUM, 32))
    add("authfile", "gem-credentials", "---\n:rubygems_api_key: {0}\n", g.r(HEX, 32))
    add("authfile", "gradle", "mavenCentralPassword={0}\nsigning.keyId=24875D73", g.pw())
    add(
        "authfile",
        "nuget",
        "dotnet nuget add source https://n.corp/v3/index.json -n corp -u ci "
        "-p {0} --store-password-in-clear-text",
        g.pw(),
    )
    # --- password arguments of admin tools ----------------------------------------------------
    for fam, tmpl in (
        ("psql-conninfo", 'psql "host=db.internal dbname=app user=app password={0}"'),
        ("mongo-p", "mongo --host db -u admin -p {0} --authenticationDatabase admin"),
        ("mysqladmin", "mysqladmin -u root password {0}"),
        ("mysqladmin-p", "mysqladmin -u root -p{0} shutdown"),
        ("net-use", r"net use \\fileserver\share /user:CORP\svc {0}"),
        ("net-use-drive", r"net use Z: \\fs01\data {0} /user:CORP\bob /persistent:yes"),
        ("cmdkey", "cmdkey /add:server01 /user:CORP\\admin /pass:{0}"),
        ("psexec", r"psexec \\host01 -u CORP\admin -p {0} cmd"),
        ("snmpwalk", "snmpwalk -v2c -c {0} 10.0.0.1 system"),
        ("snmpget-v3", "snmpget -v3 -l authPriv -u mon -a SHA -A {0} -x AES -X pr1v4te9 host x"),
        ("ipmitool", "ipmitool -I lanplus -H 10.0.0.9 -U admin -P {0} chassis status"),
        ("rabbitmq-add", "rabbitmqctl add_user deployer {0}"),
        ("rabbitmq-change", "rabbitmqctl change_password guest {0}"),
        ("sqlplus", "sqlplus system/{0}@//db.corp:1521/ORCL"),
        ("expdp", "expdp scott/{0} directory=dp dumpfile=x.dmp"),
        ("plink", "plink -ssh admin@router -pw {0} show run"),
        ("xfreerdp", "xfreerdp /v:10.0.0.5 /u:Administrator /p:{0} /cert:ignore"),
        ("lftp", "lftp -u backup,{0} sftp://files.corp"),
        ("cypher-shell", "cypher-shell -a bolt://localhost -u neo4j -p {0}"),
        ("db2", "db2 connect to SAMPLE user db2inst1 using {0}"),
        ("etcdctl", "etcdctl --user root:{0} get /config"),
        ("httpie", "http -a admin:{0} POST https://api.corp/items"),
        ("influx", "influx -username admin -password {0} -execute 'SHOW DATABASES'"),
        ("rar", "rar a -hp{0} backup.rar docs/"),
    ):  # fmt: skip
        add("admin", fam, tmpl, g.pw())
    # --- secrets stated in plain chat, pairs separated by spaces -----------------------------
    for fam, tmpl, secret in (
        ("router", "the router login is admin / {0}", g.pw()),
        ("wifi-pw", "wifi pw is {0}", g.pw(10)),
        ("wifi-password", "Guest wifi password: {0} (changes monthly)", g.pw(10)),
        ("pin", "the alarm code is {0} and the door code is 4711", g.r(DIG, 6) + "#"),
        ("creds-slash", "creds are deploy/{0} for staging", g.pw()),
        ("login-with", "log in with ops and {0}", g.pw()),
        ("passcode", "the zoom passcode is {0}", g.r(ALNUM, 8) + "9"),
        ("use-as-password", "use {0} as the password", g.pw()),
        ("key-secret-spaced", "API key 8a1b2c3d4e5f6071 secret {0}", g.r(ALNUM, 40)),
        ("id-secret-spaced", "client id abc123 client secret {0}", g.r(URLSAFE, 40)),
        ("access-secret-spaced", "access key AKIAEXAMPLEKEY12 secret key {0}", g.r(B64, 40)),
        ("token-spaced", "token {0} expires tomorrow", g.r(ALNUM, 40)),
    ):  # fmt: skip
        add("plain", fam, tmpl, secret)
    # --- families and disguises of covered kinds ---------------------------------------------
    add(
        "disguise",
        "fcm-server-key",
        "FCM server key AAAA{0}:APA91b{1}",
        (g.r(URLSAFE, 7), g.r(URLSAFE, 134)),
    )
    add(
        "disguise",
        "openvpn-static",
        "-----BEGIN OpenVPN Static key V1-----\n"
        + "\n".join(f"{{{i}}}" for i in range(4))
        + "\n-----END OpenVPN Static key V1-----",
        tuple(g.r(HEX, 32) for _ in range(4)),
    )
    add(
        "disguise",
        "wireguard",
        "[Interface]\nPrivateKey = {0}\nAddress = 10.8.0.2/32",
        base64.b64encode(g.raw(32)).decode(),
    )
    add(
        "disguise",
        "k8s-sa-token",
        "kubectl -n kube-system get secret sa-token -o yaml\ndata:\n  token: {0}",
        base64.b64encode(
            ("eyJhbGciOiJSUzI1NiJ9." + g.r(URLSAFE, 60) + "." + g.r(URLSAFE, 40)).encode()
        ).decode(),
    )
    add("disguise", "grafana-sa", "GF_TOKEN glsa_{0}_{1}", (g.r(ALNUM, 32), g.r(HEX, 8)))
    a, b = g.r(ALNUM, 20), g.r(ALNUM, 16)
    add("disguise", "wrapped-token", "GITHUB_TOKEN=ghp_{0}\n{1}", (a, b))
    a, b = g.r(URLSAFE, 40), g.r(URLSAFE, 30)
    add("disguise", "wrapped-backslash", "export API_TOKEN={0}\\\n{1}", (a, b))
    add("disguise", "algolia-admin", "algolia admin key {0}", g.r(HEX, 32))
    add("disguise", "postmark-server", "X-Postmark-Server-Token: {0}", g.uuid())
    add("disguise", "meili-master", "meilisearch --master-key {0}", g.r(URLSAFE, 32))
    return out


def references() -> list[str]:
    """References, placeholders and ordinary technical text: nothing to mask."""
    g = _Gen(7)
    sha, hx = g.r(HEX, 40), g.r(HEX, 64)
    return [
        '"apiKey": "${OPENAI_API_KEY}"',
        '{"apiKey": "${OPENAI_API_KEY}", "model": "gpt-5"}',
        "apiKey: process.env.OPENAI_API_KEY",
        "const client = new OpenAI({ apiKey: process.env.OPENAI_API_KEY });",
        "token: process.env['GH_TOKEN']",
        "password: import.meta.env.VITE_DB_PASSWORD",
        "secretName: my-db-creds",
        "valueFrom:\n  secretKeyRef:\n    secret: db-credentials\n    key: password",
        "volumes:\n- name: certs\n  secret:\n    secretName: tls-wildcard",
        "token: ${{ secrets.GITHUB_TOKEN }}",
        "password: ${{ secrets.DB_PASSWORD }}",
        "env:\n  NPM_TOKEN: ${{ secrets.NPM_TOKEN }}",
        "Authorization: Bearer $TOKEN",
        'curl -H "Authorization: Bearer ${API_TOKEN}" https://api.example.com',
        'curl -H "Authorization: Bearer $(gcloud auth print-access-token)" https://x.example.com',
        "export GITHUB_TOKEN=$(gh auth token)",
        "//registry.npmjs.org/:_authToken=${NPM_TOKEN}",
        "echo $GH_TOKEN | gh auth login --with-token",
        "snmpwalk -v2c -c public 10.0.0.1",
        "docker login -u bob --password-stdin < ~/.docker/pw",
        f"commit {sha}",
        f"sha256:{hx}",
        f"integrity sha512-{base64.b64encode(g.raw(64)).decode()}",
        f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{g.r(B64, 43)} me@laptop",
        f"request {g.uuid()} done",
        "xpub6CUGRUonZSQ4TWtTMmzXdrXDtypWKiKrhko4egpiMZbpiaQL2jkwSB1icqYh2cfDfVxdx4df189oLKnC5"
        "fSwqPfgyP3hooxujYzAu3fDVmz",
        f"my wallet address is 0x{g.r(HEX, 40)}",
        f"tx hash 0x{hx} confirmed",
        "the wifi password is on the fridge",
        "the router login is on the sticker under it",
        "Host: example.com\nUser-Agent: curl/8.5.0\nAccept: */*",
        "User name,Email,Password last used\nbob,bob@example.com,2026-11-30",
        "rabbitmqctl list_users",
        "JWT_SECRET_NAME=jwt-signing",
        "PASSWORD_MIN_LENGTH=12",
        "the seed phrase is twelve words long, write it on paper",
        "/home/dev/.config/solana/id.json",
        "net use Z: \\\\fs01\\data /persistent:yes",
        "ipmitool -I lanplus -H 10.0.0.9 -U admin -P $IPMI_PASSWORD power status",
        "cargo login",
        "vault login -method=oidc",
        "psql -h db -U app -W app",
        "WIFI:T:WPA;S:HomeNet;P:${WIFI_PASS};;",
        "array = [1, 2, 3, 4]",
    ]
