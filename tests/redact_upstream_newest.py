"""Cases from upstream's newest `src/logging/redact.test.ts` (openclaw/openclaw, 2026.9 line):
its inputs for the tool-payload redactor (`redactSensitiveText(…, {mode: "tools"})`, the same
rules as `redactToolPayloadText`). ``CASES``: (name, text, the values upstream's test says must
not survive); an empty tuple means upstream keeps the text as it is.

Upstream's fixture values are often words that repeat their key (`jwt=jwt-secret-123`,
`app_secret=opaque-app-secret`): ours keeps such a value readable on purpose (a placeholder, or a
secret object's name), so here each is a seeded random value of the same length class (R[...]),
and the one case ``placeholder-values`` keeps upstream's words (a listed difference).
"""

from __future__ import annotations

import random

_RNG = random.Random(2026_09_06)
_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def _r(n: int) -> str:
    return "".join(_RNG.choice(_ALNUM) for _ in range(n))


R = [_r(n) for n in (12, 12, 12, 12, 24, 24, 24, 24, 16, 16, 16, 16, 10, 10, 10, 10, 20, 20)]

A40 = "Wj7/" * 10  # upstream's bare AWS secret access key fixture: 40 characters
K40 = "AbCd" * 10  # its key-only AWS fixture (no bare heuristic)
MMS_ID, MMS = "a" * 24, "b" * 48

CASES: list[tuple[str, str, tuple[str, ...]]] = [
    ("env-assignment", "OPENAI_API_KEY=sk-1234567890abcdef", ("sk-1234567890abcdef",)),
    (
        "env-references-kept",
        'DISCORD_BOT_TOKEN="${DISCORD_BOT_TOKEN:-}"\n'
        "OPENAI_API_KEY=$OPENAI_API_KEY\nTOKEN=${TOKEN}\nPASSWORD=${PASSWORD:-}",
        (),
    ),
    ("env-reference-other-name", "DISCORD_BOT_TOKEN=$SUPERSECRET123", ("SUPERSECRET123",)),
    (
        "env-literal-default",
        'DISCORD_BOT_TOKEN="${DISCORD_BOT_TOKEN:-discordliteral1234567890}"',
        ("discordliteral1234567890",),
    ),
    (
        "env-json-escaped",
        'raw_params={"command":"export XAI_API_KEY=\\"issue-xai-cleartext-token-'
        'ABCDEFGHIJ1234567890\\" && echo blocked"}',
        ("issue-xai-cleartext-token-ABCDEFGHIJ1234567890",),
    ),
    ("aws-secret-labelled", f"aws_secret_access_key = {A40}", (A40,)),
    ("aws-secret-json", f'{{"SecretAccessKey":"{A40}"}}', (A40,)),
    ("aws-secret-bare", f"bare {A40}", (A40,)),
    (
        "aws-secret-flags",
        f"cmd --aws-secret-access-key={K40}\ncmd --awsSecretAccessKey {K40}",
        (K40,),
    ),
    ("cli-token", "curl --token abcdef1234567890ghij https://api.test", ("abcdef1234567890ghij",)),
    (
        "cli-hook-token",
        "gog gmail watch serve --hook-token abcdef1234567890ghij",
        ("abcdef1234567890ghij",),
    ),
    ("cli-prose-kept", "Use either --password or --password-file.", ()),
    (
        "query-access-token",
        "connect https://user.example/sync?access_token=abcdef1234567890ghij&safe=value",
        ("abcdef1234567890ghij",),
    ),
    (
        "query-short-token",
        "cdp=https://browserless.example.com/?token=supersecret123",
        ("supersecret123",),
    ),
    (
        "query-mms-token",
        "GET https://gateway.example.com/webhooks/sms?safe=value"
        f"&__openclaw_mms_token_{MMS_ID}={MMS}",
        (MMS,),
    ),
    (
        "diagnostic-assignments",
        "Docker authentication failed (password=fixture-secret); retry\n"
        "failed [token=fixture-secret]; retry\nfailed {client_secret=fixture-secret}; retry",
        ("fixture-secret",),
    ),
    ("diagnostic-quoted", 'failed (password="it\'s-a-secret"); retry', ("it's-a-secret",)),
    ("diagnostic-names-kept", "(token_count=42) [password_hint=visible] {mytoken=visible}", ()),
    ("json-token", '{"token":"abcdef1234567890ghij"}', ("abcdef1234567890ghij",)),
    (
        "json-payment",
        '{"card_number":"4242424242424242","cvc":"123","sharedPaymentToken":'
        '"spt_abcdefghijklmnopqrstuvwxyz","amount":"4200"}',
        ("4242424242424242", "spt_abcdefghijklmnopqrstuvwxyz"),
    ),
    (
        "object-inspection",
        f"config: {{ appSecret: '{R[4]}', client_secret: '{R[5]}' }}\n"
        f'payload: {{"credential":"{R[6]}"}}',
        (R[4], R[5], R[6]),
    ),
    (
        "object-auth-headers",
        "headers: { authorization: 'Bearer feishu_tenant_access_abcdef123456', "
        "cookie: 'session_cookie_value_abcdef123456' }",
        ("feishu_tenant_access_abcdef123456", "session_cookie_value_abcdef123456"),
    ),
    (
        "query-payment",
        "POST /authorize?shared_payment_token=spt_abcdefghijklmnopqrstuvwxyz"
        "&card_number=4242424242424242&amount=4200",
        ("spt_abcdefghijklmnopqrstuvwxyz", "4242424242424242"),
    ),
    ("auth-bearer", "Authorization: Bearer abcdef1234567890ghij", ("abcdef1234567890ghij",)),
    ("auth-basic", "Authorization: Basic c2VjcmV0OnBhc3M=", ("c2VjcmV0OnBhc3M=",)),
    (
        "auth-digest-aws4",
        'Authorization: Digest username="digest-user-example", '
        'response="digest-response-1234567890abcdef"; request_id=digest-example\n'
        "Authorization: AWS4-HMAC-SHA256 Credential=AKIAEXAMPLE1234567890/20260717/eu-west-1/s3/"
        "aws4_request, SignedHeaders=host, Signature=aws-signature-1234567890abcdef; status=403",
        ("digest-response-1234567890abcdef", "aws-signature-1234567890abcdef"),
    ),
    (
        "auth-hawk",
        'Authorization: Hawk id="client", mac="hawk-credential-proof-1234567890abcdef"; status=401',
        ("hawk-credential-proof-1234567890abcdef",),
    ),
    ("auth-prose-kept", "the authorization model is open", ()),
    (
        "header-api-keys",
        "api-key: samplekeyvalue1234567890\nx-goog-api-key=samplegoogvalue1234567890"
        "\nx-access-token: sampleaccessvalue1234567890",
        ("samplekeyvalue1234567890", "samplegoogvalue1234567890", "sampleaccessvalue1234567890"),
    ),
    (
        "gateway-headers",
        "X-OpenClaw-Token: supersecretgatewaytoken1234567890\n"
        "x-pomerium-jwt-assertion: eyJheaderabcd.eyJpayloadabcd.signatureabcd123456\n"
        "X-Api-Key=shortsecret",
        (
            "supersecretgatewaytoken1234567890",
            "eyJheaderabcd.eyJpayloadabcd.signatureabcd123456",
            "shortsecret",
        ),
    ),
    ("bot-token", "123456:ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef", ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef",)),
    ("lowercase-diagnostic-kept", 'agents.defaults: Unrecognized key: "llm"', ()),
    ("code-assignment-kept", "Oops: failed: code=E1 status=500", ()),
    (
        "config-assignments",
        f"db_password = {R[8]}\napi_secret: '{R[9]}'\n"
        f"tls.passphrase: {R[10]}\nsafe_option = visible",
        (R[8], R[9], R[10]),
    ),
    ("config-jwt", f"jwt: {R[11]}", (R[11],)),
    (
        "query-opaque-keys",
        f"callback https://example.test/oauth?code={R[0]}&state=visible"
        f"&x-amz-signature=abc123xyz&authorization={R[1]}&private_key={R[2]}&app_secret={R[3]}"
        f"&credential={R[16]}",
        (R[0], "abc123xyz", R[1], R[2], R[3], R[16]),
    ),
    (
        "form-auth-aliases",
        f"sig={R[12]}&x-api-key={R[13]}&x-access-token={R[14]}&x-auth-token={R[15]}&safe=value",
        (R[12], R[13], R[14], R[15]),
    ),
    (
        "query-names-kept",
        "GET https://example.test/cb?signal=visible&sigmoid=visible"
        "&signature_algorithm=v4&x-api-version=1&x-request-id=req-123",
        (),
    ),
    (
        "url-userinfo",
        "postgres://dbuser:database-password-1234567890@db.example.test/openclaw "
        "redis://:redis-password-1234567890@cache.example.test/0",
        ("database-password-1234567890", "redis-password-1234567890"),
    ),
    (
        "form-body-keys",
        f"code={R[0]}&hook_token={R[1]}&jwt={R[2]}&client_secret={R[17]}"
        "&token_count=42&session_id=session-visible",
        (R[0], R[1], R[2], R[17]),
    ),
    (
        "form-body-in-prose",
        f"request start\nbody: client_id=visible&app_secret={R[3]}"
        f"&credential={R[7]}&safe=value\nrequest end",
        (R[3], R[7]),
    ),
    (
        "placeholder-values",
        "code=oauth-code-123&jwt=jwt-secret-123&client_secret="
        "oauth-client-secret-1234567890&safe=value",
        ("jwt-secret-123", "oauth-client-secret-1234567890"),
    ),
    (
        "form-percent-encoded-keys",
        "body: client%5Fsecret=oauth-secret&app%2Dsecret=app-secret&safe=value",
        ("oauth-secret", "app-secret"),
    ),
]
