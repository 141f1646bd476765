"""More vendors' tokens, beyond upstream's: whole-text families, one row each (name, regex,
anchors), that ``rules`` puts after the generic families in ``RULES``, in this order.

The facts — prefixes, lengths, alphabets — come from gitleaks' default rules and trufflehog's
detectors; the regexes are ours, written in ``syntax``'s terms. A token made of a readable
part (a documented prefix, a signature, ids) and a random one captures the random part only: it
alone is masked, so the kind of token stays readable and searchable.
"""

from __future__ import annotations

from openclaw_sessions.redact.syntax import Anchor, plain, prefix

from .upstream import CASED, rule

_B58 = "[1-9A-HJ-NP-Za-km-z]"

VENDOR_RULES = tuple(rule(*row) for row in (
    ("1password", r"(?<![A-Za-z0-9])(ops_eyJ[A-Za-z0-9+/]{250,}={0,3})",
     (Anchor("r", "_", "(?=[sS][pP][oO](?![A-Za-z0-9_]))(?<=[jJ][yY][eE]_)"),)),
    ("1password-key", CASED.format(r"(?<![A-Za-z0-9])(A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-"
     r"[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5})"), prefix("-", "a3", bound=True)),
    ("adobe", r"(?<![A-Za-z0-9])(p8e-[A-Za-z0-9]{32})", prefix("-", "p8e", bound=True)),
    ("age", r"(AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58})",
     prefix("-", "age-secret-key")),
    ("airtable", r"(?<![A-Za-z0-9])(pat[A-Za-z0-9]{14}\.[a-f0-9]{64})",
     (Anchor("r", ".", r"(?<=[a-fA-F0-9]\.)(?<=[a-fA-F0-9]{64}\.)"
                       r"(?=[A-Za-z0-9]{14}[tT][aA][pP])"),)),
    ("artifactory", CASED.format(r"(?<![A-Za-z0-9])(AKCp[A-Za-z0-9]{69})"),
     plain("A", "(?=KCp[A-Za-z0-9]{69})")),
    ("azure-ad-secret", r"(?<![A-Za-z0-9_~.])([A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34})",
     plain("~", "(?<=[0-9][qQ]~)")),
    ("clickhouse", CASED.format(r"(?<![A-Za-z0-9])(4b1d[A-Za-z0-9]{38})"),
     plain("b", "(?<=4b)(?=1d[A-Za-z0-9]{38})")),
    ("clojars", r"(CLOJARS_[A-Za-z0-9]{60})", prefix("_", "clojars")),
    ("clickup", r"(?<![A-Za-z0-9])(pk_[0-9]{6,8}_[A-Z0-9]{32})",
     prefix("_", "pk", bound=True, then="(?<=[0-9]{6}_)")),
    ("cloudflare-origin-ca", r"(v1\.0-[a-f0-9]{24}-[a-f0-9]{146})", prefix("-", "v1.0")),
    ("duffel", r"(duffel_(?:test|live)_[A-Za-z0-9_=-]{43})",
     prefix("_", "duffel_test", "duffel_live")),
    ("dynatrace", r"(dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64})", prefix(".", "dt0c01")),
    ("easypost", CASED.format(r"(?<![A-Za-z0-9])(EZ[AT]K[A-Za-z0-9]{54})"),
     plain("K", "(?<=EZ[AT]K)(?=[A-Za-z0-9]{54})")),
    ("facebook", CASED.format(r"(?<![A-Za-z0-9])(EAA[MC][A-Za-z0-9]{100,})"),
     plain("A", "(?<=EA)(?=A[MC][A-Za-z0-9]{100})")),
    ("figma", r"(figd_[A-Za-z0-9_-]{40,})", prefix("_", "figd")),
    ("flutterwave", r"(FLWSECK(?:_TEST)?-[A-Za-z0-9]{12,32}(?:-X)?)", prefix("-", "flwseck",
     "flwseck_test")),
    ("fly-tokens", r"(?<![A-Za-z0-9])(fo1_[A-Za-z0-9_-]{43}|fm1[ar]_[A-Za-z0-9+/]{100,}={0,3}"
     r"|fm2_[A-Za-z0-9+/]{100,}={0,3})", prefix("_", "fo1", "fm1a", "fm1r", "fm2", bound=True)),
    ("google-oauth-secret", r"(GOCSPX-[A-Za-z0-9_-]{28})", prefix("-", "gocspx")),
    ("harness", r"((?:pat|sat)\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20})",
     prefix(".", "pat", "sat", bound=True, then=r"(?<=[A-Za-z0-9_-]{22}\.)")),
    ("infracost", r"(?<![A-Za-z0-9])(ico-[A-Za-z0-9]{32})", prefix("-", "ico", bound=True)),
    ("intra42", r"(s-s4t2(?:ud|af)-[a-f0-9]{64})", prefix("-", "s4t2ud", "s4t2af")),
    ("jwt-base64", CASED.format(r"(?<![A-Za-z0-9+/])(ZXlK[A-Za-z0-9+/_-]{60,}={0,2})"),
     plain("K", "(?<=ZXlK)(?=[A-Za-z0-9+/_-]{60})")),
    ("langsmith", r"(lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10})", prefix("_", "lsv2_pt",
     "lsv2_sk")),
    ("linear", r"(lin_api_[A-Za-z0-9]{40})", prefix("_", "lin_api")),
    ("mailchimp", r"(?<![A-Za-z0-9])([a-f0-9]{32}-us[0-9]{1,2})(?![A-Za-z0-9])",
     (Anchor("r", "-", "(?<=[sS][uU]-)(?=[a-fA-F0-9]{32})"),)),
    ("mailgun", r"(?<![A-Za-z0-9_-])(key-[a-f0-9]{32})(?![A-Za-z0-9_-])",
     prefix("-", "key", bound=True, then="(?<=[a-fA-F0-9]{32}-)")),
    ("mapbox", r"(?<![A-Za-z0-9])(sk\.eyJ[A-Za-z0-9_-]{50,}\.[A-Za-z0-9_-]{20,})",
     prefix(".", "sk", bound=True, then=r"(?<=[jJ][yY][eE]\.)")),
    ("maxmind", r"(?<![A-Za-z0-9])([A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk)(?![A-Za-z0-9])",
     (Anchor("r", "_", "(?<=[kK][mM][mM]_)(?=[A-Za-z0-9]{29}_)"),)),
    ("ms-teams-webhook",
     r"(https://[A-Za-z0-9-]+\.webhook\.office\.com/webhookb2/[A-Za-z0-9@/-]{40,})",
     prefix(".", "webhook")),
    ("neon", r"(napi_[A-Za-z0-9]{40,})", prefix("_", "napi")),
    ("newrelic", r"(NRAK-[A-Za-z0-9]{27}|NRII-[A-Za-z0-9-]{32}|NRJS-[a-f0-9]{19})",
     prefix("-", "nrak", "nrii", "nrjs")),
    ("notion", r"(?<![A-Za-z0-9])(ntn_[0-9]{11}[A-Za-z0-9]{35}|secret_[A-Za-z0-9]{43})"
     r"(?![A-Za-z0-9])",
     prefix("_", "ntn") + (Anchor("r", "_", r"(?=[tT][eE][rR][cC][eE][sS](?![A-Za-z0-9_]))"
                          r"(?<=[A-Za-z0-9]{43}_)"),)),
    ("octopus", CASED.format(r"(?<![A-Za-z0-9])(API-[A-Z0-9]{26})(?![A-Za-z0-9])"),
     prefix("-", "api", bound=True, then="(?<=[A-Z0-9]{26}-)")),
    ("openshift", r"(sha256~[A-Za-z0-9_-]{43})", plain("~", "(?<=[sS][hH][aA]256~)")),
    ("paypal-braintree", r"(access_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32})",
     (Anchor("r", "_", r"(?<=\$nekot_)(?=[sS][sS][eE][cC][cC][aA])"),)),
    ("pinecone", r"(pcsk_[A-Za-z0-9_]{40,})", prefix("_", "pcsk")),
    ("plaid", r"(access-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-"
     r"[0-9a-f]{4}-[0-9a-f]{12})", prefix("-", "access-sandbox", "access-development",
     "access-production")),
    ("planetscale", r"(pscale_(?:tkn|oauth|pw)_[A-Za-z0-9_=.-]{32,64})",
     prefix("_", "pscale_tkn", "pscale_oauth", "pscale_pw")),
    ("postman", r"(PMAK-[a-f0-9]{24}-[a-f0-9]{34})", prefix("-", "pmak")),
    ("prefect", r"(pnu_[A-Za-z0-9]{36})", prefix("_", "pnu")),
    ("pulumi", r"(pul-[a-f0-9]{40})", prefix("-", "pul")),
    ("razorpay", r"(rzp_(?:live|test)_[A-Za-z0-9]{14,})", prefix("_", "rzp_live", "rzp_test")),
    ("readme", r"(rdme_[a-z0-9]{70})", prefix("_", "rdme")),
    ("render", r"(?<![A-Za-z0-9])(rnd_[A-Za-z0-9]{32,})", prefix("_", "rnd", bound=True)),
    ("resend", r"(?<![A-Za-z0-9])(re_[A-Za-z0-9]{8}_[A-Za-z0-9]{24})(?![A-Za-z0-9])",
     (Anchor("r", "_", "(?=[eE][rR](?![A-Za-z0-9_]))(?<=[A-Za-z0-9]{8}_)"),)),
    ("rubygems", r"(rubygems_[a-f0-9]{48})", prefix("_", "rubygems")),
    ("scalingo", r"(tk-us-[A-Za-z0-9_-]{48})", prefix("-", "tk-us")),
    ("brevo", r"(x(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16})", prefix("-", "xkeysib",
     "xsmtpsib")),
    ("sentry", r"(sntrys_eyJ[A-Za-z0-9+/=_]{60,}|sntryu_[a-f0-9]{64})",
     prefix("_", "sntrys", "sntryu")),
    ("settlemint", r"(sm_(?:aat|pat|sat)_[A-Za-z0-9]{16})",
     prefix("_", "sm_aat", "sm_pat", "sm_sat")),
    ("shippo", r"(shippo_(?:live|test)_[a-fA-F0-9]{40})", prefix("_", "shippo_live",
     "shippo_test")),
    ("shopify", r"(shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32})", prefix("_", "shpat", "shpca", "shppa",
     "shpss")),
    ("sonarqube", r"(?<![A-Za-z0-9])(sq[apu]_[a-f0-9]{40})",
     prefix("_", "sqa", "sqp", "squ", bound=True)),
    ("sourcegraph", r"(sgp_(?:[a-fA-F0-9]{16}|local)_[a-fA-F0-9]{40}|sgp_[a-fA-F0-9]{40})",
     prefix("_", "sgp")),
    ("square", r"(?<![A-Za-z0-9_-])((?-i:EAAA)[A-Za-z0-9_-]{22,60}|sq0atp-[A-Za-z0-9_-]{22}"
     r"|sq0csp-[A-Za-z0-9_-]{43})", plain("A", "(?<=EA)(?=AA[A-Za-z0-9_-]{22})")
     + prefix("-", "sq0atp", "sq0csp")),
    ("stripe-any", r"((?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{10,})", prefix("_", "sk_live",
     "sk_test", "sk_prod", "rk_live", "rk_test", "rk_prod")),
    ("stripe-webhook", r"(whsec_[A-Za-z0-9]{24,})", prefix("_", "whsec")),
    ("supabase-secret", r"(sb_secret_[A-Za-z0-9_-]{20,})", prefix("_", "sb_secret")),
    ("tailscale", r"(tskey-[a-z]+-[A-Za-z0-9]{8,}-[A-Za-z0-9]{16,})", prefix("-", "tskey")),
    ("terraform", r"([A-Za-z0-9]{14}\.(?-i:atlasv1)\.[A-Za-z0-9_=-]{60,70})", prefix(".",
     "atlasv1")),
    ("twilio", CASED.format(r"(?<![A-Za-z0-9])(SK[0-9a-fA-F]{32})(?![A-Za-z0-9])"),
     plain("K", "(?<=SK)(?=[0-9a-fA-F]{32})")),
    ("typeform", r"(tfp_[A-Za-z0-9_.=-]{59})", prefix("_", "tfp")),
    ("vault", r"(?<![A-Za-z0-9])(hv[sbr]\.[A-Za-z0-9_-]{24,300}|s\.(?=[A-Za-z]*[0-9])"
     r"[A-Za-z0-9]{24})(?![A-Za-z0-9_-])", prefix(".", "hvs", "hvb", "hvr", bound=True)
     + prefix(".", "s", bound=True, then=r"(?<=[A-Za-z0-9]{24}\.)")),
    ("woocommerce", r"(?<![A-Za-z0-9])(c[ks]_[a-f0-9]{40})(?![A-Za-z0-9])",
     (Anchor("r", "_", "(?=[kKsS][cC](?![A-Za-z0-9_]))(?<=[a-fA-F0-9]{40}_)"),)),
    ("yandex", r"(?<![A-Za-z0-9])((?-i:AQVN)[A-Za-z0-9_-]{35,38}|t1\.[A-Za-z0-9_-]+={0,2}\."
     r"[A-Za-z0-9_-]{86}={0,2})",
     plain("A", "(?=QVN[A-Za-z0-9_-]{35})") + prefix(".", "t1", bound=True)),
    # --- third round (issue 23): chat platforms, file sharing, AI developer services ----------
    ("slack-client", r"(?<![A-Za-z0-9])xoxc-(?:[0-9]{6,}-){3}([a-f0-9]{64})(?![A-Za-z0-9])",
     prefix("-", "xoxc", bound=True)),
    ("slack-cookie", r"(?<![A-Za-z0-9])xoxd-([A-Za-z0-9%/+=_-]{40,})", prefix("-", "xoxd",
     bound=True)),
    ("twitter-bearer", CASED.format(r"(?<![A-Za-z0-9%])A{22}([A-Za-z0-9%]{80,120})"),
     plain("A", "(?<![A-Za-z0-9%]A)(?=A{21}[A-Za-z0-9%]{20})")),
    ("discord-webhook-any", r"https://(?:(?:ptb|canary)\.)?discord(?:app)?\.com/api/(?:v[0-9]+/)?"
     r"webhooks/[0-9]{17,20}/([A-Za-z0-9_-]{60,})", prefix(".", "discord", "discordapp")),
    ("chat-hook-url", r"/(?:hooks/catch/[0-9]{5,10}/([a-z0-9]{6,10})/?"
     r"|with/key/([A-Za-z0-9_-]{20,})|bot/v2/hook/([0-9a-f-]{36})|hooks/([A-Za-z0-9]{20,32}(?:/[A-Za-z0-9]{32,64})?))"
     r"(?![A-Za-z0-9/_-])", plain("k", "(?<=/hook)(?=s?/[A-Za-z0-9]{5})")
     + plain("k", "(?<=/with/k)(?=ey/)")),
    ("dropbox", r"(?<![A-Za-z0-9.])sl\.(?:u\.)?([A-Za-z0-9_-]{130,})", prefix(".", "sl", "sl.u",
     bound=True)),
    ("dropbox-long", CASED.format(r"(?<![A-Za-z0-9])([a-z0-9]{11}AAAAAAAAAA[a-z0-9_=-]{43})"
     r"(?![A-Za-z0-9_=-])"), plain("A", "(?<=[a-z0-9]{11}A)(?=A{9}[a-z0-9_=-]{43})")),
    ("backblaze", CASED.format(r"(?<![A-Za-z0-9+/])K[0-9]{3}([A-Za-z0-9+/]{27})"
     r"(?![A-Za-z0-9+/])"), plain("K", "(?=[0-9]{3}[A-Za-z0-9+/]{27})")),
    ("nvidia", r"(?<![A-Za-z0-9])nvapi-([A-Za-z0-9_-]{60,70})", prefix("-", "nvapi", bound=True)),
    ("together", r"(?<![A-Za-z0-9])tgp_v1_([A-Za-z0-9_-]{40,})", prefix("_", "tgp_v1",
     bound=True)),
    ("ai-dash-keys", r"(?<![A-Za-z0-9_-])(?:csk|llx)-([A-Za-z0-9]{40,60})(?![A-Za-z0-9_-])",
     prefix("-", "csk", "llx", bound=True)),
    ("jina", r"(?<![A-Za-z0-9])jina_([A-Za-z0-9]{50,70})(?![A-Za-z0-9])", prefix("_", "jina",
     bound=True)),
    ("e2b", r"(?<![A-Za-z0-9])e2b_([a-f0-9]{40})(?![A-Za-z0-9])", prefix("_", "e2b", bound=True)),
    ("voyage", r"(?<![A-Za-z0-9_-])pa-([A-Za-z0-9_-]{43})(?![A-Za-z0-9_-])", prefix("-", "pa",
     bound=True, then=r"(?<=[A-Za-z0-9_-]{43}-)")),
    ("anyscale", r"(?<![A-Za-z0-9])esecret_([a-z0-9]{20,})", prefix("_", "esecret", bound=True)),
    ("runpod", r"(?<![A-Za-z0-9])rpa_([A-Z0-9]{40,})(?![A-Za-z0-9])", prefix("_", "rpa",
     bound=True)),
    ("modal", r"(?<![A-Za-z0-9_-])a[ks]-([A-Za-z0-9]{22})(?![A-Za-z0-9_-])", prefix("-", "ak",
     "as", bound=True, then=r"(?<=[A-Za-z0-9]{22}-)")),
    ("vercel", r"(?<![A-Za-z0-9])vc[pikar]_([A-Za-z0-9]{40,})", prefix("_", "vcp", "vci", "vck",
     "vca", "vcr", bound=True)),
    ("azure-devops", CASED.format(r"(?<![A-Za-z0-9])([A-Za-z0-9]{52})JQQJ[A-Za-z0-9]{20}AZDO"
     r"[A-Za-z0-9]{4}(?![A-Za-z0-9])"), plain("A", "(?<=JQQJ[A-Za-z0-9]{20}A)(?=ZDO)")),
    ("fcm-server-key", CASED.format(r"(?<![A-Za-z0-9_-])(AAAA[A-Za-z0-9_-]{7}:APA91b"
     r"[A-Za-z0-9_-]{130,})"), plain("A", "(?<=:A)(?=PA91b)")),
    ("bip32-private", CASED.format(rf"(?<![A-Za-z0-9])([xyzXYZtuvUV]prv{_B58}{{100,112}})"
     r"(?![A-Za-z0-9])"), plain("p", "(?=rv[1-9A-HJ-NP-Za-km-z]{100})(?<=[xyzXYZtuvUV]p)")),
))  # fmt: skip
