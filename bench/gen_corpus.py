#!/usr/bin/env python3
"""Deterministic generator of a synthetic OpenClaw state directory (benchmarks and tests).

Writes ``OUT_DIR/agents/<agentId>/sessions/`` with a streamed ``sessions.json`` session store
and one JSONL transcript per session in the pi/OpenClaw format (version 3: header line, then
entries with 8-hex ``id`` and ``parentId``; a few legacy v1 files without ids), plus
``<sessionId>.jsonl.reset.<ISO>`` archives of older generations of some session keys, and
``OUT_DIR/manifest.json`` with counts and the location of every planted word.

The content is synthetic ops/coding/travel/billing chat built from word lists and templates in
English, French, German, Vietnamese, Russian, Ukrainian and (about ``--cjk-ratio`` of the
user/assistant text messages) Chinese, Japanese and Korean. Assistant messages carry thinking
and toolCall blocks, tool results carry code and log lines, a few user messages carry small PNG
images, and sessions contain compactions, custom entries, regenerations (two assistant children
of one user message, the active one last) and rewinds (a later entry whose parentId points back
to an earlier entry, abandoning a branch). Some tool results and messages contain obviously fake
secret-looking strings (``sk-fake…``, ``ghp_…``, ``PASSWORD=…``) for the redaction benchmark.

The same arguments always give byte-identical output (every random choice comes from
``random.Random`` seeded with strings). Memory stays flat: lines are buffered and written in
large chunks, and only per-session bookkeeping (and a few bytes per planned session) is held.

Usage::

    python bench/gen_corpus.py /tmp/corpus --messages 100000 [--agents 2] [--seed 1]
        [--cjk-ratio 0.2] [--sessions-per-agent auto|N] [--plant WORD ...] [--force]

or from Python: ``generate(Path(tmp), 300, plant=["zanzibarquux"])`` returns the manifest.
Stdlib only.
"""

import argparse
import base64
import json
import os
import random
import resource
import shutil
import string
import struct
import sys
import time
import uuid
import zlib
from bisect import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from pathlib import Path
from typing import Any

MANIFEST_VERSION = 1
_ENC = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_FLUSH_LINES = 2048

# Timeline of the synthetic corpus: sessions start between these two instants.
_T0_MS = 1_767_571_200_000  # 2026-01-05T00:00:00Z
_SPAN_MS = 165 * 86_400_000

# Longest run of messages between two active user messages: one full turn (12 messages, with
# a regeneration) followed by an abandoned (rewound) segment of at most 24 messages.
_MAX_TURN = 12
_MAX_ABANDON = 24
_PLANT_SLACK = _MAX_TURN + _MAX_ABANDON + 4

# --------------------------------------------------------------------------------------------
# Vocabulary
# --------------------------------------------------------------------------------------------

_TECH = (
    "deploy kubernetes postgres docker nginx redis invoice database cluster pipeline backup "
    "migration api server staging production certificate dashboard alert latency timeout "
    "webhook terraform kafka grafana prometheus helm ingress replica index query schema release "
    "rollback hotfix branch commit merge cron logs memory cpu disk quota billing payment stripe "
    "refund customer travel flight hotel booking itinerary visa passport meeting calendar agenda "
    "budget report spreadsheet contract vendor laptop vpn dns ssl s3 bucket lambda queue worker "
    "scheduler ansible jenkins github gitlab ci tests coverage linter typescript python rust "
    "golang sqlite mongodb elasticsearch opensearch rabbitmq celery fastapi django react nextjs "
    "vite webpack npm pip poetry uv systemd journald cgroup oom swap raid zfs nfs smb ssh "
    "firewall iptables wireguard tailscale cloudflare route53 loadbalancer autoscaler hpa "
    "statefulset daemonset configmap namespace pvc etcd kubelet containerd runc"
).split()

_CITIES = (
    "Paris|Lyon|Berlin|München|Hamburg|Hà Nội|Đà Nẵng|Hồ Chí Minh|Москва|Київ|Львів|Lisbon|"
    "Madrid|東京|大阪|서울|부산|上海|北京|深圳|Singapore|Bangkok|New York|Toronto"
).split("|")

_SYLLABLES = (
    "ka ze ro mi lu vo tan quel rix bor fen gal hur ix jo kor lem nar osk pra quo sil tor ur "
    "vex wim yal zor dra fli gno kry ple sna thu vra"
).split()

_SERVICES = (
    "api web worker billing auth search gateway scheduler notifier ingest exporter payments "
    "invoices bookings reports media cache"
).split()

_TABLES_L = (
    "invoices customers bookings payments events sessions users orders flights audit_log".split()
)
_HOST_PREFIXES = "db pg web k8s-node app cache mq edge bastion build runner".split()
_REGIONS = "eu-west eu-central us-east ap-south ap-northeast".split()
_LEVELS = ("INFO", "INFO", "INFO", "WARN", "ERROR", "DEBUG")


def _zipf_cum(n: int, s: float = 1.0) -> list[float]:
    return list(accumulate(1.0 / (i + 1) ** s for i in range(n)))


def _make_codenames(n: int) -> list[str]:
    rng = random.Random("gen_corpus:codenames")
    seen: set[str] = set()
    out: list[str] = []
    while len(out) < n:
        name = "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4)))
        if name not in seen and len(name) >= 5:
            seen.add(name)
            out.append(name)
    return out


_CODENAMES = _make_codenames(20_000)
_CODENAMES_CUM = _zipf_cum(len(_CODENAMES), 1.05)
_TECH_CUM = _zipf_cum(len(_TECH), 0.9)


def _pick_zipf(rng: random.Random, items: Sequence[str], cum: list[float]) -> str:
    return items[bisect(cum, rng.random() * cum[-1])]


def _rare(rng: random.Random) -> str:
    """A high-cardinality term: codename, host, ticket, invoice number or flight number."""
    r = rng.random()
    if r < 0.5:
        return _pick_zipf(rng, _CODENAMES, _CODENAMES_CUM)
    if r < 0.7:
        return f"{rng.choice(_HOST_PREFIXES)}-{rng.choice(_REGIONS)}-{rng.randint(1, 40)}"
    if r < 0.85:
        return f"{rng.choice(('INC', 'OPS', 'JIRA', 'SEC'))}-{rng.randint(100, 99999)}"
    if r < 0.95:
        return f"INV-{rng.randint(2024, 2026)}-{rng.randint(1, 9999):04d}"
    return f"{rng.choice(('LH', 'AF', 'VN', 'SU', 'PS', 'JL', 'KE', 'CA'))}{rng.randint(10, 2999)}"


def _split(s: str) -> list[str]:
    return [w.strip() for w in s.split("|") if w.strip()]


@dataclass(slots=True)
class _Lang:
    code: str
    nouns: list[str]
    verbs: list[str]
    adjs: list[str]
    pps: list[str]
    user: list[str]
    assistant: list[str]
    joiner: str = " "
    cjk: bool = False


_LANGS: dict[str, _Lang] = {
    "en": _Lang(
        "en",
        _split(
            "issue|service|config|job|ticket|report|invoice|release|node|pod|table|index|alert|"
            "deadline|meeting|flight|hotel room|budget|document|migration|rollout|build|image|"
            "volume|user account|password reset|quota|bill|database|server|backup|certificate"
        ),
        _split(
            "check|restart|deploy|roll back|update|review|fix|migrate|scale|archive|book|cancel|"
            "pay|send|compare|summarize|investigate|rotate|clean up|monitor"
        ),
        _split(
            "slow|broken|stuck|flaky|healthy|degraded|overdue|pending|unreachable|full|outdated|"
            "fine"
        ),
        _split(
            "restarted|deployed|rolled back|updated|fixed|migrated|scaled|archived|booked|paid|"
            "sent|rotated|reviewed"
        ),
        [
            "Can you {v} the {t} {n} on {x}?",
            "The {t} {n} on {x} has been {a} since this morning.",
            "Please {v} {x} before the review tomorrow.",
            "Why is the {n} so {a} today?",
            "I need to {v} the {n} for {x}, can you help?",
            "Any update on {x}? The {t} team is waiting.",
            "Remind me to {v} the {n} at {time}.",
            "Book a flight to {city} for {x}, budget around {amt}.",
            "Send the {n} for {x} to accounting, it is overdue.",
            "I already {pp} the {n} but {t} still does not answer.",
            "Quick question: should we {v} the {t} {n} or wait until Monday?",
            "Ok, thanks. Also {v} the {n} on {x} when you have a minute.",
        ],
        [
            "I checked the {t} {n} on {x} and it looks {a}.",
            "Here is what I found: the {n} is {a} because {t} hit its limit.",
            "I'll {v} the {n} now and report back.",
            "Done. {x} was {pp} and the {n} is healthy again.",
            "The root cause seems to be the {t} {n}; I suggest we {v} it in the next window.",
            "Summary: {k} items were {pp}, {k2} are still {a}.",
            "The {n} for {x} is {a}; I can {v} it if you confirm.",
            "I compared the last {k} runs of {t} and the {n} became {a} after {x}.",
            "Your trip to {city} is planned around {x}; the total is about {amt}.",
        ],
    ),
    "fr": _Lang(
        "fr",
        _split(
            "le service|la configuration|la tâche|le ticket|le rapport|la facture|la mise en "
            "production|le nœud|la table|l'index|l'alerte|l'échéance|la réunion|le vol|la "
            "chambre d'hôtel|le budget|le document|la migration|le déploiement|la sauvegarde|"
            "le certificat|le mot de passe|la base de données|le serveur"
        ),
        _split(
            "vérifier|redémarrer|déployer|annuler|mettre à jour|corriger|migrer|réserver|payer|"
            "envoyer|comparer|résumer|analyser|nettoyer|surveiller"
        ),
        _split(
            "lent|bloqué|instable|en panne|saturé|en retard|à jour|opérationnel|dégradé|"
            "inaccessible"
        ),
        _split("redémarré|déployé|corrigé|migré|réservé|payé|envoyé|vérifié|annulé|mis à jour"),
        [
            "Peux-tu {v} {n} {t} sur {x} ?",
            "{n} sur {x} est {a} depuis ce matin, c'est très gênant.",
            "Il faut {v} {x} avant la réunion de vendredi, s'il te plaît.",
            "Pourquoi {n} est-il si {a} aujourd'hui ?",
            "J'ai déjà {pp} {n}, mais {t} ne répond toujours pas.",
            "Rappelle-moi de {v} {n} demain à {time}.",
            "Réserve un vol pour {city} pour {x}, budget d'environ {amt}.",
            "Où en est {x} ? L'équipe {t} attend une réponse.",
            "Ça marche, merci ! Peux-tu aussi {v} {n} ?",
        ],
        [
            "J'ai vérifié {n} {t} sur {x} : tout semble {a}.",
            "Voilà ce que j'ai trouvé : {n} est {a} parce que {t} a atteint sa limite.",
            "Je vais {v} {n} maintenant et je te tiens au courant.",
            "C'est fait. {x} a été {pp} et {n} fonctionne à nouveau.",
            "La cause probable est {n} {t} ; je propose de le {v} pendant la prochaine fenêtre.",
            "Résumé : {k} éléments ont été {pp}, {k2} sont encore {a}.",
            "Pour ton voyage à {city}, j'ai noté {x} ; le coût total est d'environ {amt}.",
        ],
    ),
    "de": _Lang(
        "de",
        _split(
            "der Dienst|die Konfiguration|der Auftrag|das Ticket|der Bericht|die Rechnung|die "
            "Bereitstellung|der Knoten|die Tabelle|der Index|die Warnung|die Frist|das Meeting|"
            "der Flug|das Hotelzimmer|das Budget|das Dokument|die Migration|die Sicherung|das "
            "Zertifikat|das Passwort|die Datenbank|der Server|die Störung"
        ),
        _split(
            "prüfen|neu starten|ausrollen|zurücksetzen|aktualisieren|beheben|migrieren|buchen|"
            "bezahlen|senden|vergleichen|zusammenfassen|überwachen|aufräumen|überprüfen"
        ),
        _split(
            "langsam|blockiert|instabil|ausgefallen|voll|überfällig|aktuell|gesund|"
            "beeinträchtigt|nicht erreichbar"
        ),
        _split(
            "neu gestartet|ausgerollt|behoben|migriert|gebucht|bezahlt|gesendet|geprüft|"
            "storniert|aktualisiert"
        ),
        [
            "Kannst du {n} ({t}) auf {x} {v}?",
            "{n} auf {x} ist seit heute früh {a}, das ist ärgerlich.",
            "Bitte {x} vor dem Meeting am Freitag {v}.",
            "Warum ist {n} heute so {a}?",
            "Ich habe {n} schon {pp}, aber {t} antwortet immer noch nicht.",
            "Erinnere mich morgen um {time}: {n} {v}.",
            "Buch mir einen Flug nach {city} für {x}, Budget ungefähr {amt}.",
            "Gibt es Neuigkeiten zu {x}? Das {t}-Team wartet.",
            "Danke! Könntest du außerdem {n} {v}? Das wäre großartig.",
        ],
        [
            "Ich habe {n} ({t}) auf {x} geprüft: alles wirkt {a}.",
            "Folgendes habe ich gefunden: {n} ist {a}, weil {t} sein Limit erreicht hat.",
            "Ich werde {n} jetzt {v} und melde mich gleich.",
            "Erledigt. {x} wurde {pp} und {n} läuft wieder.",
            "Die Ursache ist vermutlich {n} in {t}; wir sollten es im nächsten Fenster {v}.",
            "Zusammenfassung: {k} Einträge wurden {pp}, {k2} sind noch {a}.",
            "Für die Reise nach {city} habe ich {x} notiert; insgesamt etwa {amt}.",
        ],
    ),
    "vi": _Lang(
        "vi",
        _split(
            "dịch vụ|cấu hình|công việc|phiếu hỗ trợ|báo cáo|hóa đơn|bản triển khai|nút máy chủ|"
            "bảng dữ liệu|chỉ mục|cảnh báo|hạn chót|cuộc họp|chuyến bay|phòng khách sạn|ngân "
            "sách|tài liệu|bản sao lưu|chứng chỉ|mật khẩu|cơ sở dữ liệu|máy chủ"
        ),
        _split(
            "kiểm tra|khởi động lại|triển khai|hoàn tác|cập nhật|sửa|di chuyển|đặt|thanh toán|"
            "gửi|so sánh|tóm tắt|theo dõi|dọn dẹp"
        ),
        _split(
            "chậm|bị treo|không ổn định|bị lỗi|đầy|quá hạn|ổn định|bình thường|không truy cập được"
        ),
        _split("khởi động lại|triển khai|sửa|cập nhật|đặt|thanh toán|gửi|kiểm tra"),
        [
            "Bạn có thể {v} {n} {t} trên {x} không?",
            "{n} trên {x} bị {a} từ sáng nay, phiền quá.",
            "Nhớ {v} {x} trước cuộc họp thứ Sáu nhé.",
            "Tại sao hôm nay {n} lại {a} như vậy?",
            "Tôi đã {pp} {n} rồi nhưng {t} vẫn không phản hồi.",
            "Nhắc tôi {v} {n} lúc {time} ngày mai.",
            "Đặt giúp tôi vé máy bay đi {city} cho {x}, ngân sách khoảng {amt}.",
            "Có tin gì mới về {x} không? Nhóm {t} đang chờ.",
        ],
        [
            "Tôi đã kiểm tra {n} {t} trên {x}: mọi thứ có vẻ {a}.",
            "Đây là những gì tôi tìm thấy: {n} đang {a} vì {t} đã chạm giới hạn.",
            "Tôi sẽ {v} {n} ngay bây giờ và báo lại cho bạn.",
            "Xong rồi. {x} đã được {pp} và {n} hoạt động trở lại.",
            "Nguyên nhân có thể là {n} của {t}; tôi đề xuất {v} trong đợt bảo trì tới.",
            "Tóm tắt: {k} mục đã được {pp}, {k2} mục vẫn còn {a}.",
        ],
    ),
    "ru": _Lang(
        "ru",
        _split(
            "сервис|конфигурация|задача|тикет|отчёт|счёт|развёртывание|узел|таблица|индекс|"
            "оповещение|дедлайн|встреча|рейс|номер в гостинице|бюджет|документ|миграция|"
            "резервная копия|сертификат|пароль|база данных|сервер"
        ),
        _split(
            "проверить|перезапустить|развернуть|откатить|обновить|исправить|мигрировать|"
            "забронировать|оплатить|отправить|сравнить|подытожить|почистить"
        ),
        _split(
            "с ошибкой|без ответа|под нагрузкой|в порядке|на паузе|в очереди|переполнен|недоступен"
        ),
        _split("перезапущен|развёрнут|исправлен|обновлён|оплачен|отправлен|проверен|откатан"),
        [
            "Можешь {v} {n} {t} на {x}?",
            "{n} на {x} с утра {a}, это очень мешает.",
            "Нужно {v} {x} до встречи в пятницу.",
            "Почему {n} сегодня {a}?",
            "Я уже пытался {v} {n}, но {t} всё ещё не отвечает.",
            "Напомни мне завтра в {time}: {v} {n}.",
            "Забронируй рейс в {city} для {x}, бюджет примерно {amt}.",
            "Есть новости по {x}? Команда {t} ждёт ответа.",
        ],
        [
            "Я проверил {n} {t} на {x}: всё {a}.",
            "Вот что я нашёл: {n} {a}, потому что {t} упёрся в лимит.",
            "Я собираюсь {v} {n} и сразу сообщу результат.",
            "Готово. {x}: {pp}, {n} снова работает.",
            "Вероятная причина — {n} в {t}; предлагаю {v} это в следующее окно обслуживания.",
            "Итог: обработано {k} элементов, ещё {k2} ждут очереди.",
        ],
    ),
    "uk": _Lang(
        "uk",
        _split(
            "сервіс|конфігурація|завдання|тікет|звіт|рахунок|розгортання|вузол|таблиця|індекс|"
            "сповіщення|дедлайн|зустріч|рейс|номер у готелі|бюджет|документ|міграція|резервна "
            "копія|сертифікат|пароль|база даних|сервер"
        ),
        _split(
            "перевірити|перезапустити|розгорнути|відкотити|оновити|виправити|мігрувати|"
            "забронювати|оплатити|надіслати|порівняти|підсумувати|почистити"
        ),
        _split(
            "з помилкою|без відповіді|під навантаженням|в порядку|на паузі|у черзі|"
            "переповнений|недоступний"
        ),
        _split("перезапущено|розгорнуто|виправлено|оновлено|оплачено|надіслано|перевірено"),
        [
            "Чи можеш {v} {n} {t} на {x}?",
            "{n} на {x} з самого ранку {a}, це дуже заважає.",
            "Треба {v} {x} до зустрічі в п'ятницю.",
            "Чому {n} сьогодні {a}?",
            "Я вже намагався {v} {n}, але {t} досі не відповідає.",
            "Нагадай мені завтра о {time}: {v} {n}.",
            "Забронюй рейс до {city} для {x}, бюджет приблизно {amt}.",
            "Є новини щодо {x}? Команда {t} чекає на відповідь.",
        ],
        [
            "Я перевірив {n} {t} на {x}: усе {a}.",
            "Ось що я знайшов: {n} {a}, бо {t} досяг ліміту.",
            "Я збираюся {v} {n} і одразу повідомлю результат.",
            "Готово. {x}: {pp}, {n} знову працює.",
            "Ймовірна причина — {n} у {t}; пропоную {v} це у наступне вікно обслуговування.",
            "Підсумок: оброблено {k} елементів, ще {k2} чекають у черзі. Ґрунтовний звіт згодом.",
        ],
    ),
    "zh": _Lang(
        "zh",
        _split(
            "服务|配置|任务|工单|报告|发票|部署|节点|数据表|索引|告警|截止日期|会议|航班|酒店房间|"
            "预算|文档|迁移|备份|证书|密码|数据库|服务器"
        ),
        _split("检查|重启|部署|回滚|更新|修复|迁移|预订|支付|发送|比较|总结|监控|清理"),
        _split("很慢|卡住了|不稳定|出错了|满了|逾期了|正常|无法访问"),
        _split("重启|部署|修复|更新|预订|支付|发送|检查"),
        [
            "你能帮我{v}一下{x}上的{t}{n}吗？",
            "{x}上的{n}从早上开始就{a}，很麻烦。",
            "周五开会之前需要{v}{x}。",
            "为什么今天{n}{a}？",
            "我已经{pp}了{n}，但是{t}还是没有响应。",
            "明天{time}提醒我{v}{n}。",
            "帮我订一张去{city}的机票，给{x}用，预算大约{amt}。",
            "{x}有什么进展吗？{t}团队在等回复。",
        ],
        [
            "我检查了{x}上的{t}{n}，看起来{a}。",
            "我发现的问题是：{n}{a}，因为{t}已经达到上限。",
            "我现在就去{v}{n}，稍后告诉你结果。",
            "完成了。{x}已经{pp}，{n}恢复正常。",
            "根本原因可能是{t}的{n}；建议在下一个维护窗口{v}。",
            "总结：{k}个项目已经{pp}，还有{k2}个{a}。",
        ],
        joiner="",
        cjk=True,
    ),
    "ja": _Lang(
        "ja",
        _split(
            "サービス|設定|ジョブ|チケット|レポート|請求書|デプロイ|ノード|テーブル|インデックス|"
            "アラート|締め切り|会議|フライト|ホテルの部屋|予算|ドキュメント|移行|バックアップ|"
            "証明書|パスワード|データベース|サーバー"
        ),
        _split("確認|再起動|デプロイ|ロールバック|更新|修正|移行|予約|支払い|送信|比較|要約|監視"),
        _split(
            "遅い|止まっている|不安定|エラーになっている|いっぱい|期限切れ|正常|アクセスできない"
        ),
        _split("確認|再起動|デプロイ|更新|修正|予約|送信"),
        [
            "{x}の{t}{n}を{v}してもらえますか？",
            "{x}の{n}が朝から{a}です。困っています。",
            "金曜日の会議までに{x}を{v}する必要があります。",
            "今日はなぜ{n}が{a}のですか？",
            "{n}はもう{pp}しましたが、{t}がまだ応答しません。",
            "明日の{time}に{n}の{v}をリマインドしてください。",
            "{x}用に{city}行きのフライトを予約してください。予算は{amt}くらいです。",
            "{x}の進捗はどうですか？{t}チームが返事を待っています。",
        ],
        [
            "{x}の{t}{n}を確認しました。{a}ようです。",
            "調べた結果：{t}が上限に達したため、{n}が{a}状態です。",
            "今から{n}を{v}して、結果を報告します。",
            "完了しました。{x}は{pp}済みで、{n}は正常に戻りました。",
            "根本原因は{t}の{n}のようです。次のメンテナンス枠で{v}することを提案します。",
            "まとめ：{k}件を{pp}済み、残り{k2}件はまだ{a}です。",
        ],
        joiner="",
        cjk=True,
    ),
    "ko": _Lang(
        "ko",
        _split(
            "서비스|설정|작업|티켓|보고서|청구서|배포|노드|테이블|인덱스|알림|마감일|회의|항공편|"
            "호텔 방|예산|문서|마이그레이션|백업|인증서|비밀번호|데이터베이스|서버"
        ),
        _split("확인|재시작|배포|롤백|업데이트|수정|이전|예약|결제|전송|비교|요약|모니터링|정리"),
        _split("느림|멈춤|불안정|오류 발생|가득 참|기한 초과|정상|접속 불가"),
        _split("확인|재시작|배포|업데이트|수정|예약|전송"),
        [
            "{x}에서 {t} {n} 좀 {v}해 줄 수 있어?",
            "{x}의 {n}가 아침부터 {a} 상태예요. 너무 불편해요.",
            "금요일 회의 전까지 {x}를 {v}해야 해요.",
            "오늘 {n}가 왜 {a} 상태인가요?",
            "{n}는 이미 {pp}했는데 {t}가 아직 응답하지 않아요.",
            "내일 {time}에 {n} {v}하라고 알려 줘.",
            "{x}를 위해 {city}행 항공편을 예약해 줘. 예산은 {amt} 정도야.",
            "{x} 진행 상황 어때요? {t} 팀이 답변을 기다리고 있어요.",
        ],
        [
            "{x}의 {t} {n}를 확인했어요. {a} 상태로 보여요.",
            "확인 결과: {t}가 한도에 도달해서 {n}가 {a} 상태입니다.",
            "지금 {n}를 {v}하고 결과를 알려 드릴게요.",
            "완료했습니다. {x}는 {pp} 완료, {n}는 정상으로 돌아왔습니다.",
            "근본 원인은 {t}의 {n}인 것 같습니다. 다음 점검 시간에 {v}할 것을 제안합니다.",
            "요약: {k}건 {pp} 완료, {k2}건은 아직 {a} 상태입니다.",
        ],
        cjk=True,
    ),
}
_NON_CJK = ("en", "fr", "de", "vi", "ru", "uk")
_NON_CJK_W = (50, 12, 12, 9, 9, 8)
_CJK = ("zh", "ja", "ko")

_THINK = [
    "The user wants me to {v} the {n} on {x}.",
    "I should look at {t} first, then check the {n}.",
    "Let me recall what happened with {x} earlier in this conversation.",
    "The {n} is probably {a} because of {t}; I need evidence before answering.",
    "I will run a command to {v} the {t} {n} and read the output carefully.",
    "Maybe the {n} was {pp} already; the logs for {x} should tell.",
    "Keep the answer short and in the user's language.",
]


def _template_slots(tpl: str) -> tuple[str, ...]:
    return tuple(f for _, f, _, _ in string.Formatter().parse(tpl) if f)


_PARSED: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
for _code, _lang in _LANGS.items():
    _PARSED[_code + ":u"] = [(t, _template_slots(t)) for t in _lang.user]
    _PARSED[_code + ":a"] = [(t, _template_slots(t)) for t in _lang.assistant]
_PARSED["think"] = [(t, _template_slots(t)) for t in _THINK]


class _Prose:
    """Sentence and text generator over the vocabulary above (one per session RNG)."""

    __slots__ = ("rng",)

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def _slot(self, name: str, lang: _Lang) -> str:
        rng = self.rng
        if name == "t":
            return _pick_zipf(rng, _TECH, _TECH_CUM)
        if name == "x":
            return _rare(rng)
        if name == "n":
            return rng.choice(lang.nouns)
        if name == "v":
            return rng.choice(lang.verbs)
        if name == "a":
            return rng.choice(lang.adjs)
        if name == "pp":
            return rng.choice(lang.pps)
        if name in ("k", "k2"):
            return str(rng.randint(2, 60))
        if name == "time":
            return f"{rng.randint(6, 22)}:{rng.choice((0, 15, 30, 45)):02d}"
        if name == "city":
            return rng.choice(_CITIES)
        if name == "amt":
            return f"{rng.randint(80, 4000)} {rng.choice(('€', 'USD', '$', '₫', '₽', '¥'))}"
        return name

    def sentence(self, lang: _Lang, kind: str) -> str:
        key = kind if kind == "think" else f"{lang.code}:{kind}"
        tpl, slots = self.rng.choice(_PARSED[key])
        s = tpl.format(**{name: self._slot(name, lang) for name in slots})
        keep = tpl.startswith(("{x}", "{t}"))  # codes and tech terms keep their case
        return s[0].upper() + s[1:] if s[0].islower() and not keep else s

    def sentences(self, lang: _Lang, kind: str, lo: int, hi: int) -> list[str]:
        return [self.sentence(lang, kind) for _ in range(self.rng.randint(lo, hi))]

    def thinking(self, lang: _Lang) -> str:
        en = _LANGS["en"]
        parts = [self.sentence(en, "think") for _ in range(self.rng.randint(1, 4))]
        if self.rng.random() < 0.25:
            parts.append(self.sentence(lang, "a"))
        return " ".join(parts)


# --------------------------------------------------------------------------------------------
# Tool calls and results
# --------------------------------------------------------------------------------------------

_LOG_MSGS = [
    "connection refused to postgres:5432 (attempt {n}/5)",
    "request took {ms}ms path=/api/v1/{tbl} status={st}",
    "pod {svc}-{h5} OOMKilled (limit {mem}Mi)",
    "certificate for {host} expires in {n} days",
    "job {code} finished in {sec}s rows={ms}",
    "retrying webhook delivery to {svc} ({n} attempts left)",
    "slow query {ms}ms: SELECT * FROM {tbl} WHERE updated_at > now() - interval '1 day'",
    "disk usage on {host} at {pct}% (threshold 85%)",
    "invoice {inv} marked as paid by {svc}",
    "scheduled backup {code} uploaded to s3://backups/{tbl}/{h5}.tar.zst",
    "user {h5} logged in from {ip}",
    "kafka consumer lag for topic {tbl}: {ms}",
]

_CODE_TPLS = [
    (
        "python",
        'def {fn}_{tbl}(session, since):\n    """Return {tbl} rows changed since `since`."""\n'
        '    rows = session.execute(\n        "SELECT id, status FROM {tbl} WHERE updated_at > %s",'
        " (since,)\n    )\n    for row in rows:\n        if row.status is None:\n"
        '            log.warning("missing status for %s", row.id)\n            continue\n'
        "        yield row\n",
    ),
    (
        "typescript",
        "export async function {fn}{Tbl}(client: Client, limit = {n}): Promise<Row[]> {{\n"
        '  const res = await client.query("select * from {tbl} order by id desc limit $1", '
        "[limit]);\n  if (res.rowCount === 0) {{\n    logger.warn(`no {tbl} rows for {code}`);\n"
        "  }}\n  return res.rows.map(toRow);\n}}\n",
    ),
    (
        "yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {svc}\n  namespace: {code}\n"
        "spec:\n  replicas: {n}\n  template:\n    spec:\n      containers:\n        - name: {svc}\n"
        "          image: registry.local/{svc}:{ver}\n          resources:\n"
        "            limits: {{memory: {mem}Mi}}\n",
    ),
    (
        "sql",
        "CREATE INDEX CONCURRENTLY IF NOT EXISTS {tbl}_{fn}_idx ON {tbl} (customer_id, "
        "created_at);\nEXPLAIN ANALYZE SELECT count(*) FROM {tbl} WHERE created_at > "
        "now() - interval '{n} days';\n",
    ),
    (
        "bash",
        "#!/usr/bin/env bash\nset -euo pipefail\nkubectl -n {code} rollout status deploy/{svc}"
        " --timeout=120s\npg_dump -h {host} -Fc {tbl} > /backups/{tbl}-$(date +%F).dump\n",
    ),
]

_EXEC_CMDS = [
    "kubectl get pods -n {code}",
    "kubectl logs deploy/{svc} -n {code} --tail=200",
    "psql -h {host} -c 'SELECT count(*) FROM {tbl};'",
    "docker ps --filter name={svc}",
    "systemctl status {svc}.service",
    "tail -n 100 /var/log/{svc}/error.log",
    "git log --oneline -n 20",
    "df -h",
    "curl -s https://{svc}.internal/healthz",
    "helm upgrade {svc} charts/{svc} -n {code} --atomic",
]


def _fake_secret(rng: random.Random) -> str:
    """An obviously fake credential-looking string (for redaction benchmarks)."""
    h = f"{rng.getrandbits(192):048x}"
    r = rng.randrange(6)
    if r == 0:
        return f"OPENAI_API_KEY=sk-fake{h[:40]}"
    if r == 1:
        return f"GITHUB_TOKEN=ghp_{h[:36]}"
    if r == 2:
        return f"Authorization: Bearer {h[:44]}"
    if r == 3:
        return f"DB_PASSWORD={h[:20]}"
    if r == 4:
        return f"DATABASE_URL=postgres://app:{h[:16]}@db-internal:5432/app"
    return f'{{"apiKey": "AIza{h[:35]}"}}'


def _png(w: int, h: int, rgb: tuple[int, int, int], noise: random.Random | None) -> str:
    """A valid PNG, base64-encoded (solid colour, or noise when ``noise`` is given)."""

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))

    rows = b""
    for _ in range(h):
        if noise is None:
            row = bytes(rgb) * w
        else:
            row = bytes(noise.getrandbits(8) for _ in range(3 * w))
        rows += b"\x00" + row
    raw = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
    raw += chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")
    return base64.b64encode(raw).decode("ascii")


_IMAGES = [
    _png(8, 8, (200, 40, 40), None),
    _png(16, 16, (30, 120, 220), None),
    _png(4, 4, (20, 200, 90), None),
    _png(32, 24, (0, 0, 0), random.Random("gen_corpus:image")),
]

_MODELS = [
    ("anthropic", "anthropic-messages", "claude-sonnet-4-5"),
    ("openai", "openai-responses", "gpt-5.1"),
    ("ollama", "openai-completions", "qwen3:8b"),
    ("zai", "openai-completions", "glm-5"),
    ("minimax-portal", "anthropic-messages", "MiniMax-M2.5"),
]


def _iso(ms: int) -> str:
    s, r = divmod(ms, 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(s)) + f".{r:03d}Z"


def _mkid(n: int, salt: int) -> str:
    """8 hex chars; a bijection of the per-session counter, so ids never collide."""
    x = (n * 0x9E3779B1 + salt) & 0xFFFFFFFF
    x ^= x >> 15
    x = (x * 0x2C1B3C6D) & 0xFFFFFFFF
    x ^= x >> 12
    return f"{x:08x}"


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


# --------------------------------------------------------------------------------------------
# Statistics
# --------------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Stats:
    files: dict[str, int] = field(default_factory=lambda: {"v3": 0, "v1": 0, "reset_archives": 0})
    lines: int = 0
    bytes: int = 0
    entries: dict[str, int] = field(default_factory=dict)
    roles: dict[str, int] = field(
        default_factory=lambda: {"user": 0, "assistant": 0, "toolResult": 0}
    )
    indexable: dict[str, int] = field(
        default_factory=lambda: {"user": 0, "assistant": 0, "live": 0, "reset_archives": 0, "v1": 0}
    )
    text_langs: dict[str, int] = field(default_factory=dict)
    features: dict[str, int] = field(
        default_factory=lambda: {
            "regenerations": 0,
            "rewinds": 0,
            "abandoned_messages": 0,
            "compactions": 0,
            "images": 0,
            "thinking_blocks": 0,
            "tool_calls": 0,
            "tool_errors": 0,
            "assistant_errors": 0,
            "string_content": 0,
            "secret_like": 0,
            "large_tool_results": 0,
        }
    )


# --------------------------------------------------------------------------------------------
# One transcript file
# --------------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Plant:
    at: int  # message index within the session at/after which to plant
    word: str


class _Transcript:
    """Writes one session transcript, tracking the tree, the active branch and counters."""

    def __init__(
        self,
        path: Path,
        sid: str,
        *,
        rng: random.Random,
        stats: _Stats,
        v3: bool,
        bucket: str,
        start_ms: int,
        cwd: str,
        model: tuple[str, str, str],
        lang: _Lang,
        cjk_lang: _Lang,
        cjk_ratio: float,
        channel_prefix: bool,
        plants: list[_Plant],
        on_plant: Callable[[str, str, str, str], None],
    ) -> None:
        self.path = path
        self.f = open(path, "wb")  # noqa: SIM115 - closed in close()
        self.buf: list[str] = []
        self.sid = sid
        self.rng = rng
        self.prose = _Prose(rng)
        self.stats = stats
        self.v3 = v3
        self.bucket = bucket  # "live" | "reset_archives" | "v1"
        self.ms = start_ms
        self.cwd = cwd
        self.model = model
        self.lang = lang
        self.cjk_lang = cjk_lang
        self.cjk_ratio = cjk_ratio
        self.channel_prefix = channel_prefix
        self.plants = plants
        self.on_plant = on_plant
        self.n = 0
        self.salt = rng.getrandbits(32)
        self.leaf: str | None = None
        self.active = True
        self.msg_index = 0
        self.idx_user = 0
        self.idx_asst = 0
        self.user_ids: list[str] = []  # active user message ids (for compaction firstKeptEntryId)
        self.tokens = 0
        self.out_tokens = 0
        self.compactions = 0

    # -- low level ---------------------------------------------------------------------------

    def _write(self, d: dict[str, Any]) -> None:
        self.buf.append(_ENC(d))
        ent = self.stats.entries
        t = d["type"]
        ent[t] = ent.get(t, 0) + 1
        if len(self.buf) >= _FLUSH_LINES:
            self._flush()

    def _flush(self) -> None:
        if self.buf:
            data = ("\n".join(self.buf) + "\n").encode("utf-8")
            self.f.write(data)
            self.stats.lines += len(self.buf)
            self.stats.bytes += len(data)
            self.buf.clear()

    def close(self) -> None:
        self._flush()
        self.f.close()

    def _head(self, typ: str) -> tuple[str | None, dict[str, Any]]:
        ts = _iso(self.ms)
        if not self.v3:
            return None, {"type": typ, "timestamp": ts}
        self.n += 1
        eid = _mkid(self.n, self.salt)
        d = {"type": typ, "id": eid, "parentId": self.leaf, "timestamp": ts}
        self.leaf = eid
        return eid, d

    def _tick(self, lo: int, hi: int) -> None:
        self.ms += self.rng.randint(lo, hi)

    # -- entries -----------------------------------------------------------------------------

    def header(self, thinking_level: str) -> None:
        prov, api, model = self.model
        d: dict[str, Any] = {"type": "session"}
        if self.v3:
            d["version"] = 3
        d.update({"id": self.sid, "timestamp": _iso(self.ms), "cwd": self.cwd})
        if not self.v3:
            d.update({"provider": prov, "modelId": model, "thinkingLevel": thinking_level})
        self._write(d)
        if self.v3:
            self._tick(5, 40)
            self.model_change(thinking_level)

    def model_change(self, thinking_level: str | None) -> None:
        prov, api, model = self.model
        _, d = self._head("model_change")
        d.update({"provider": prov, "modelId": model})
        self._write(d)
        if thinking_level is not None:
            _, d = self._head("thinking_level_change")
            d["thinkingLevel"] = thinking_level
            self._write(d)
        if self.v3:
            self._tick(1, 10)
            eid, d = self._head("custom")
            d["customType"] = "model-snapshot"
            d["data"] = {"timestamp": self.ms, "provider": prov, "modelApi": api, "modelId": model}
            self._write(d)

    def custom_message(self) -> None:
        rng = self.rng
        _, d = self._head("custom_message")
        if rng.random() < 0.7:
            content = "Read HEARTBEAT.md if it exists (workspace context)"
        else:
            warn = rng.randint(1, 9)
            content = f"System: [{_iso(self.ms)[:16]}] cron check {_rare(rng)}: {warn} warnings"
        d.update(
            {
                "customType": "openclaw.runtime-context",
                "content": content,
                "display": False,
                "details": {"source": "openclaw-runtime-context"},
            }
        )
        self._write(d)

    def compaction(self) -> None:
        if not self.user_ids:
            return
        rng = self.rng
        keep = self.user_ids[max(0, len(self.user_ids) - rng.randint(2, 6))]
        en = _LANGS["en"]
        summary = (
            "## Goal\n"
            + self.prose.sentence(en, "u")
            + "\n\n## Constraints & Preferences\n- "
            + self.prose.sentence(self.lang, "u")
            + "\n\n## Progress\n- "
            + "\n- ".join(self.prose.sentences(en, "a", 1, 3))
            + "\n\n## Next Steps\n- "
            + self.prose.sentence(en, "a")
        )
        _, d = self._head("compaction")
        d.update(
            {
                "summary": summary,
                "firstKeptEntryId": keep,
                "tokensBefore": self.tokens,
                "details": {"readFiles": [], "modifiedFiles": []},
                "fromHook": False,
            }
        )
        self._write(d)
        self.compactions += 1
        self.stats.features["compactions"] += 1

    def _pick_lang(self) -> _Lang:
        r = self.rng.random()
        if r < self.cjk_ratio:
            return self.cjk_lang
        if r < self.cjk_ratio + (1.0 - self.cjk_ratio) * 0.75:
            return self.lang
        return _LANGS["en"]

    def _count_lang(self, lang: _Lang) -> None:
        tl = self.stats.text_langs
        tl[lang.code] = tl.get(lang.code, 0) + 1

    def _plant(self, text: str, role: str, eid: str | None) -> str:
        """Insert every due planted word into ``text`` (active v3 messages only)."""
        if not self.plants or eid is None or not self.active or self.plants[0].at > self.msg_index:
            return text
        words: list[str] = []
        while self.plants and self.plants[0].at <= self.msg_index:
            word = self.plants.pop(0).word
            head = text.find("\n\n")  # stay in the prose, out of lists and code blocks
            head = len(text) if head < 0 else head
            cut = text.find(" ", head // 2, head)
            if cut < 0:
                cut = head
            text = f"{text[:cut]} {word} {text[cut:].lstrip()}".rstrip()
            words.append(word)
        for word in words:
            self.on_plant(word, eid, role, text)
        return text

    def _count_message(self, role: str, has_text: bool) -> None:
        st = self.stats
        st.roles[role] += 1
        self.msg_index += 1
        if not self.active:
            st.features["abandoned_messages"] += 1
        if has_text and self.active:
            if role == "user":
                self.idx_user += 1
            elif role == "assistant":
                self.idx_asst += 1

    def user(self, *, force_image: bool = False) -> None:
        rng = self.rng
        self._tick(20_000, 3 * 3_600_000)
        lang = self._pick_lang()
        parts = self.prose.sentences(lang, "u", 1, 3)
        if rng.random() < 0.004:
            parts.append(f"Here is the key I used: {_fake_secret(rng)}")
            self.stats.features["secret_like"] += 1
        text = lang.joiner.join(parts) if lang.cjk else " ".join(parts)
        if self.channel_prefix:
            tm = time.gmtime(self.ms // 1000)
            text = f"[{time.strftime('%a %Y-%m-%d %H:%M', tm)} UTC] {text}"
        image = force_image or rng.random() < 0.01
        if image:
            text = f"[media attached: image/png] {text}"
        eid, d = self._head("message")
        text = self._plant(text, "user", eid)
        self._count_lang(lang)
        content: Any
        if image:
            content = [
                {"type": "text", "text": text},
                {"type": "image", "data": rng.choice(_IMAGES), "mimeType": "image/png"},
            ]
            self.stats.features["images"] += 1
        elif rng.random() < 0.1:
            content = text
            self.stats.features["string_content"] += 1
        else:
            content = [{"type": "text", "text": text}]
        d["message"] = {
            "role": "user",
            "content": content,
            "timestamp": self.ms - rng.randint(1, 30),
        }
        self._write(d)
        self._count_message("user", True)
        if self.active and eid is not None:
            self.user_ids.append(eid)
            if len(self.user_ids) > 64:
                del self.user_ids[:32]

    def _usage(self, out: int) -> dict[str, Any]:
        rng = self.rng
        inp = rng.randint(20, 4000)
        cr = self.tokens if rng.random() < 0.7 else 0
        cw = rng.randint(0, 2000)
        self.tokens += inp + out
        self.out_tokens += out
        ci, co = round(inp * 3e-6, 6), round(out * 1.5e-5, 6)
        ccr, ccw = round(cr * 3e-7, 6), round(cw * 3.75e-6, 6)
        return {
            "input": inp,
            "output": out,
            "cacheRead": cr,
            "cacheWrite": cw,
            "totalTokens": inp + out + cr + cw,
            "cost": {
                "input": ci,
                "output": co,
                "cacheRead": ccr,
                "cacheWrite": ccw,
                "total": round(ci + co + ccr + ccw, 6),
            },
        }

    def _assistant_text(self, lang: _Lang, final: bool) -> str:
        rng = self.rng
        p = self.prose
        if not final:
            return p.sentence(lang, "a")
        parts = p.sentences(lang, "a", 1, 4)
        text = lang.joiner.join(parts) if lang.cjk else " ".join(parts)
        r = rng.random()
        if r < 0.25:
            text += "\n\n" + "\n".join("- " + s for s in p.sentences(lang, "a", 2, 4))
        elif r < 0.35:
            cmd = rng.choice(_EXEC_CMDS).format(**self._fields())
            text += f"\n\n```bash\n{cmd}\n```"
        if rng.random() < 0.003:
            text += f"\n\nFor reference, the old value was {_fake_secret(rng)}"
            self.stats.features["secret_like"] += 1
        return text

    def _fields(self) -> dict[str, str]:
        rng = self.rng
        tbl = rng.choice(_TABLES_L)
        return {
            "svc": rng.choice(_SERVICES),
            "code": _pick_zipf(rng, _CODENAMES, _CODENAMES_CUM),
            "host": f"{rng.choice(_HOST_PREFIXES)}-{rng.choice(_REGIONS)}-{rng.randint(1, 40)}",
            "tbl": tbl,
            "Tbl": tbl.title().replace("_", ""),
            "fn": rng.choice(("load", "sync", "export", "purge", "reindex", "fetch")),
            "n": str(rng.randint(1, 12)),
            "ms": str(rng.randint(3, 9000)),
            "st": rng.choice(("200", "200", "201", "404", "500", "502", "504")),
            "h5": f"{rng.getrandbits(20):05x}",
            "mem": str(rng.choice((128, 256, 512, 1024, 2048))),
            "sec": f"{rng.uniform(0.1, 120):.1f}",
            "pct": str(rng.randint(40, 99)),
            "inv": f"INV-{rng.randint(2024, 2026)}-{rng.randint(1, 9999):04d}",
            "ip": f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}",
            "ver": f"v{rng.randint(1, 4)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}",
        }

    def _tool_call(self) -> tuple[dict[str, Any], str]:
        rng = self.rng
        cid = (
            f"call_{rng.getrandbits(64):016x}"
            if rng.random() < 0.5
            else f"toolu_01{rng.getrandbits(96):024x}"
        )
        r = rng.random()
        f = self._fields()
        args: dict[str, Any]
        if r < 0.45:
            name, args = "exec", {"command": rng.choice(_EXEC_CMDS).format(**f)}
        elif r < 0.65:
            ext = rng.choice(("py", "ts", "yaml", "sql", "sh"))
            name, args = "read", {"path": f"{self.cwd}/src/{f['svc']}/{f['fn']}_{f['tbl']}.{ext}"}
        elif r < 0.72:
            name = "edit"
            args = {
                "path": f"src/{f['svc']}/config.yaml",
                "oldText": f"replicas: {f['n']}",
                "newText": f"replicas: {int(f['n']) + 1}",
            }
        elif r < 0.84:
            t1, t2 = _pick_zipf(rng, _TECH, _TECH_CUM), _pick_zipf(rng, _TECH, _TECH_CUM)
            q = f"{t1} {t2} {f['code']}"
            name, args = "web_search", {"query": q, "count": 5}
        elif r < 0.90:
            name, args = "web_fetch", {"url": f"https://docs.example.com/{f['svc']}/{f['code']}"}
        elif r < 0.96:
            name, args = "memory_search", {"query": f"{f['code']} {f['tbl']}"}
        else:
            name = "sessions_spawn"
            args = {"task": self.prose.sentence(_LANGS["en"], "u"), "label": f["code"]}
        return {"type": "toolCall", "id": cid, "name": name, "arguments": args}, name

    def _tool_output(self, name: str) -> tuple[str, bool]:
        rng = self.rng
        f = self._fields()
        is_error = rng.random() < 0.03
        if name in ("read",) or (name == "exec" and rng.random() < 0.15):
            lang, tpl = rng.choice(_CODE_TPLS)
            out = tpl.format(**f)
            if rng.random() < 0.3:
                out += "\n" + rng.choice(_CODE_TPLS)[1].format(**self._fields())
        elif name == "exec":
            lines = []
            t = self.ms - rng.randint(0, 600_000)
            for _ in range(rng.randint(2, 30)):
                t += rng.randint(1, 5000)
                msg = rng.choice(_LOG_MSGS).format(**f)
                lines.append(
                    f"{_iso(t)} {rng.choice(_LEVELS)} [{f['svc']}-{rng.randint(0, 9)}] {msg}"
                )
            if rng.random() < 0.04:
                lines.insert(rng.randint(0, len(lines)), _fake_secret(rng))
                self.stats.features["secret_like"] += 1
            if rng.random() < 0.003:
                self.stats.features["large_tool_results"] += 1
                extra = rng.randint(300, 800)
                lines.extend(
                    f"{_iso(t + i)} DEBUG [{f['svc']}] {rng.choice(_LOG_MSGS).format(**f)}"
                    for i in range(extra)
                )
            out = "\n".join(lines)
            if is_error:
                out += f"\n\nCommand exited with code {rng.choice((1, 2, 124, 137))}"
        elif name in ("web_search", "memory_search"):
            res = [
                {
                    "title": self.prose.sentence(_LANGS["en"], "a"),
                    "url": f"https://example.com/{_rare(rng)}",
                    "snippet": self.prose.sentence(self._pick_lang(), "a"),
                }
                for _ in range(rng.randint(1, 4))
            ]
            out = json.dumps({"query": f["code"], "results": res}, ensure_ascii=False, indent=2)
        elif name == "sessions_spawn":
            out = json.dumps(
                {"status": "accepted", "childSessionKey": f"agent:main:subagent:{_uuid(rng)}"}
            )
        else:
            out = "\n\n".join(self.prose.sentences(_LANGS["en"], "a", 2, 6))
        return out, is_error

    def assistant(
        self, *, tool_calls: int, final: bool, abandoned: bool = False
    ) -> list[tuple[str, str]]:
        """Write one assistant message; return (toolCallId, toolName) pairs it asked for."""
        rng = self.rng
        self._tick(1_500, 45_000)
        content: list[dict[str, Any]] = []
        calls: list[tuple[str, str]] = []
        feats = self.stats.features
        if rng.random() < (0.5 if tool_calls else 0.35):
            sig = f"{rng.getrandbits(192):048x}" if rng.random() < 0.5 else "reasoning"
            content.append(
                {
                    "type": "thinking",
                    "thinking": self.prose.thinking(self.lang),
                    "thinkingSignature": sig,
                }
            )
            feats["thinking_blocks"] += 1
        error = final and rng.random() < 0.01
        text: str | None = None
        lang = self._pick_lang()
        if not error and (final or rng.random() < 0.4):
            text = self._assistant_text(lang, final)
        was_active = self.active
        if abandoned:
            self.active = False
        eid, d = self._head("message")
        if text is not None:
            text = self._plant(text, "assistant", eid)
            content.append({"type": "text", "text": text})
            self._count_lang(lang)
        for _ in range(tool_calls):
            block, name = self._tool_call()
            content.append(block)
            calls.append((block["id"], name))
        feats["tool_calls"] += len(calls)
        prov, api, model = self.model
        out_tokens = rng.randint(5, 900)
        msg: dict[str, Any] = {
            "role": "assistant",
            "content": [] if error else content,
            "api": api,
            "provider": prov,
            "model": model,
            "usage": self._usage(out_tokens),
            "stopReason": "error" if error else ("toolUse" if calls else "stop"),
            "timestamp": self.ms - rng.randint(500, 20_000),
        }
        if error:
            msg["errorMessage"] = rng.choice(
                (
                    "Request was aborted",
                    "429 rate_limit_error: too many requests",
                    "LLM request timed out.",
                    "Connection error.",
                )
            )
            feats["assistant_errors"] += 1
            calls = []
        d["message"] = msg
        self._write(d)
        self._count_message("assistant", text is not None and not error)
        self.active = was_active
        return calls

    def tool_result(self, call_id: str, name: str) -> None:
        self._tick(80, 8_000)
        out, is_error = self._tool_output(name)
        _, d = self._head("message")
        msg: dict[str, Any] = {
            "role": "toolResult",
            "toolCallId": call_id,
            "toolName": name,
            "content": [{"type": "text", "text": out}],
        }
        if name == "exec":
            msg["details"] = {
                "exitCode": 1 if is_error else 0,
                "durationMs": self.rng.randint(5, 30_000),
            }
        msg["isError"] = is_error
        msg["timestamp"] = self.ms
        if is_error:
            self.stats.features["tool_errors"] += 1
        d["message"] = msg
        self._write(d)
        self._count_message("toolResult", False)

    # -- turns -------------------------------------------------------------------------------

    def turn(self, budget: int, *, regen: bool, image: bool) -> int:
        """One user turn using at most ``budget`` (>= 1) messages; returns messages written."""
        rng = self.rng
        self.user(force_image=image)
        n = 1
        if n >= budget:
            return n
        r = rng.random()
        rounds = 0 if r < 0.55 else 1 if r < 0.8 else 2 if r < 0.93 else 3
        for _ in range(rounds):
            k = 1 if rng.random() < 0.8 else 2
            calls = self.assistant(tool_calls=k, final=False)
            n += 1
            for cid, name in calls:
                if n >= budget:
                    return n
                self.tool_result(cid, name)
                n += 1
            if n >= budget:
                return n
        if regen and self.v3 and rounds == 0 and budget - n >= 2:
            parent = self.leaf
            self.assistant(tool_calls=0, final=True, abandoned=True)
            self.leaf = parent
            self.stats.features["regenerations"] += 1
            n += 1
        self.assistant(tool_calls=0, final=True)
        return n + 1

    def run(self, length: int, *, force: bool, thinking_level: str) -> None:
        """Write the header and ``length`` messages (regens and rewinds when v3)."""
        rng = self.rng
        self.header(thinking_level)
        count = 0
        turn_i = 0
        since_compaction = 0
        compact_every = rng.randint(25, 70)
        want_rewind = force
        while count < length:
            remaining = length - count
            if self.v3:
                if (since_compaction >= compact_every or (force and turn_i == 5)) and remaining > 2:
                    self.compaction()
                    since_compaction = 0
                if rng.random() < 0.02 or (force and turn_i == 2):
                    self.custom_message()
            if rng.random() < 0.004:
                self.model = rng.choice(_MODELS)
                self.model_change(rng.choice(("off", "low", "medium", "high")))
            rewind = (
                self.v3
                and turn_i >= 2
                and remaining >= 12
                and (rng.random() < 0.012 or (want_rewind and turn_i >= 3))
            )
            if rewind:
                want_rewind = False
                target = self.leaf
                snap = (self.idx_user, self.idx_asst, list(self.user_ids))
                cap = min(remaining - 1, _MAX_ABANDON)
                self.active = False
                used = 0
                for _ in range(rng.randint(1, 2)):
                    if cap - used < 1:
                        break
                    used += self.turn(min(cap - used, _MAX_TURN), regen=False, image=False)
                self.active = True
                self.idx_user, self.idx_asst, self.user_ids = snap
                self.leaf = target
                self.stats.features["rewinds"] += 1
                count += used
                since_compaction += 1
                turn_i += 1
                continue
            regen = self.v3 and turn_i >= 1 and (rng.random() < 0.03 or (force and turn_i == 1))
            image = force and turn_i == 0
            count += self.turn(remaining, regen=regen, image=image)
            since_compaction += 1
            turn_i += 1
        self.close()
        st = self.stats
        st.indexable["user"] += self.idx_user
        st.indexable["assistant"] += self.idx_asst
        st.indexable[self.bucket] += self.idx_user + self.idx_asst
        st.files["v3" if self.v3 and self.bucket == "live" else self.bucket] += 1


# --------------------------------------------------------------------------------------------
# Planning
# --------------------------------------------------------------------------------------------

_AGENT_NAMES = ("main", "ops", "research", "travel", "finance", "home", "coder", "scout")
_SUB_LABELS = (
    "check nightly backups",
    "summarize invoices",
    "kubernetes upgrade dry-run",
    "postgres vacuum report",
    "book team travel",
    "triage alerts",
    "周报汇总",
    "デプロイ確認",
    "vérifier les factures",
    "Rechnungen prüfen",
)


@dataclass(slots=True)
class _Planned:
    key: str
    kind: str
    meta: dict[str, Any]
    gens: list[int]  # message counts: archived generations first, live generation last
    sids: list[str]
    v1: bool
    force: bool
    offset: int = 0  # global message index of the live generation's first message
    plants: list[_Plant] = field(default_factory=list)


def _split_budget(total: int, weights: Sequence[float]) -> list[int]:
    """Largest-remainder split of ``total`` by ``weights``, every part >= 1 (total >= len)."""
    k = len(weights)
    rest = total - k
    s = sum(weights)
    raw = [rest * w / s for w in weights]
    parts = [int(x) for x in raw]
    order = sorted(range(k), key=lambda i: raw[i] - parts[i], reverse=True)
    for i in order[: rest - sum(parts)]:
        parts[i] += 1
    return [p + 1 for p in parts]


def _draw_length(rng: random.Random) -> int:
    r = rng.random()
    if r < 0.03:
        return rng.randint(1000, 4000)
    if r < 0.2:
        return rng.randint(100, 600)
    return rng.randint(2, 60)


def _plan_agent(
    agent_i: int, agent: str, budget: int, seed: int, spa: int | None, agent_names: Sequence[str]
) -> list[_Planned]:
    rng = random.Random(f"{seed}:plan:{agent_i}")
    if spa is None:
        main_len = (
            min(rng.randint(1500, 4000), budget // 3) if budget >= 300 else max(1, budget // 3)
        )
        lengths = [main_len]
        rem = budget - main_len
        while rem > 0:
            ln = min(_draw_length(rng), rem)
            lengths.append(ln)
            rem -= ln
    else:
        k = max(1, min(spa, budget))
        w = [float(_draw_length(rng)) for _ in range(k)]
        w[0] = max(w)
        lengths = _split_budget(budget, w)

    prefix = f"agent:{agent}:"
    plans: list[_Planned] = []
    groups: list[str] = []
    for i, ln in enumerate(lengths):
        meta: dict[str, Any] = {}
        kind: str
        if i == 0:
            kind, key = "main", prefix + "main"
            meta.update({"chatType": "direct", "channel": "webchat", "lastChannel": "webchat"})
        elif i == 1:
            kind = "subagent"
        elif i == 2 and agent_i == 0:
            kind = "telegram"
        else:
            r = rng.random()
            kind = (
                "telegram"
                if r < 0.3
                else "group"
                if r < 0.42
                else "thread"
                if r < 0.47 and groups
                else "subagent"
                if r < 0.75
                else "cron"
                if r < 0.85
                else "incognito"
                if r < 0.86
                else "webchat"
            )
        if kind == "telegram":
            peer = str(rng.randint(10**8, 10**10))
            key = f"{prefix}telegram:direct:{peer}"
            meta.update(
                {
                    "chatType": "direct",
                    "channel": "telegram",
                    "lastChannel": "telegram",
                    "lastTo": peer,
                    "displayName": f"telegram:{peer}",
                }
            )
        elif kind == "webchat":
            peer = f"{rng.getrandbits(40):010x}"
            key = f"{prefix}webchat:direct:{peer}"
            meta.update({"chatType": "direct", "channel": "webchat", "lastChannel": "webchat"})
        elif kind == "group":
            if rng.random() < 0.5:
                gid = str(rng.randint(10**17, 10**18))
                key = f"{prefix}discord:group:{gid}"
                meta.update({"chatType": "group", "channel": "discord", "groupId": gid})
                meta["displayName"] = f"discord:g-{gid}"
            else:
                gid = f"c0{rng.getrandbits(40):010x}"
                key = f"{prefix}slack:channel:{gid}"
                meta.update({"chatType": "channel", "channel": "slack", "groupId": gid})
                meta["displayName"] = (
                    f"#{rng.choice(_SERVICES)}-{rng.choice(('ops', 'alerts', 'dev'))}"
                )
            groups.append(key)
        elif kind == "thread":
            parent = rng.choice(groups)
            key = f"{parent}:thread:{rng.randint(10**9, 10**10)}.{rng.randint(0, 999999):06d}"
            meta.update(
                {
                    "chatType": "channel",
                    "parentSessionKey": parent,
                    "label": rng.choice(_SUB_LABELS),
                }
            )
        elif kind in ("subagent", "incognito"):
            ident = _uuid(rng) if kind == "subagent" else f"incognito-{rng.getrandbits(48):012x}"
            key = f"{prefix}subagent:{ident}"
            if agent_i > 0 and rng.random() < 0.3:
                spawned_by = f"agent:{agent_names[0]}:main"
            elif plans and rng.random() < 0.7:
                spawned_by = rng.choice(plans).key
            else:
                spawned_by = prefix + "main"
            depth = 2 if ":subagent:" in spawned_by else 1
            meta.update(
                {
                    "spawnedBy": spawned_by,
                    "spawnDepth": depth,
                    "subagentRole": "worker" if depth > 1 else "orchestrator",
                    "label": rng.choice(_SUB_LABELS),
                }
            )
            if rng.random() < 0.25:
                meta["parentSessionKey"] = spawned_by
        elif kind == "cron":
            key = f"{prefix}cron:{_uuid(rng)}:run:{_uuid(rng)}"
            meta["label"] = f"cron: {rng.choice(_SUB_LABELS)}"
        gens = [ln]
        if ln >= 8 and (rng.random() < (0.6 if i == 0 else 0.08) or (i == 0 and agent_i == 0)):
            ngen = 2 if ln >= 30 and rng.random() < 0.3 else 1
            for _ in range(ngen):
                a = max(2, int(gens[-1] * rng.uniform(0.2, 0.4)))
                gens[-1] -= a
                gens.insert(0, a)
        v1 = (
            (agent_i == 0 and i == 2)
            or (kind in ("telegram", "webchat", "group") and rng.random() < 0.04)
        ) and len(gens) == 1
        sids = [_uuid(rng) for _ in gens]
        plans.append(_Planned(key, kind, meta, gens, sids, v1, force=(i == 0)))
    return plans


def _assign_plants(plans: list[_Planned], words: Sequence[str], total: int) -> None:
    offset = 0
    slots: list[_Planned] = []
    for p in plans:
        offset += sum(p.gens[:-1])
        p.offset = offset
        offset += p.gens[-1]
        if not p.v1 and p.kind != "incognito":  # incognito sessions are never searched
            slots.append(p)
    if not words:
        return
    if not slots:
        raise ValueError("no v3 session to plant words in")
    starts = [p.offset for p in slots]
    used: set[int] = set()
    for i, word in enumerate(words):
        g = int((i + 0.5) / len(words) * total)
        j = max(0, bisect(starts, g) - 1)
        if j in used and len(used) < len(slots):
            while j in used:
                j = (j + 1) % len(slots)
        used.add(j)
        p = slots[j]
        length = p.gens[-1]
        at = max(0, min(g - p.offset, length - _PLANT_SLACK))
        p.plants.append(_Plant(at, word))
    for p in slots:
        p.plants.sort(key=lambda pl: pl.at)


# --------------------------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------------------------


def _reset_suffix(ms: int) -> str:
    return _iso(ms).replace(":", "-")


def generate(
    out_dir: Path,
    messages: int,
    *,
    agents: int = 2,
    seed: int = 1,
    cjk_ratio: float = 0.2,
    plant: Sequence[str] = (),
    sessions_per_agent: int | None = None,
    force: bool = False,
) -> dict[str, Any]:
    """Generate the corpus under ``out_dir`` and return the manifest (also written to disk).

    ``sessions_per_agent=None`` picks session counts and lengths automatically. ``force``
    removes a previous ``agents/`` tree and ``manifest.json`` under ``out_dir`` first.
    """
    out_dir = Path(out_dir)
    if agents < 1 or messages < agents:
        raise ValueError("need agents >= 1 and messages >= agents")
    if not 0.0 <= cjk_ratio <= 1.0:
        raise ValueError("cjk_ratio must be between 0 and 1")
    if len(set(plant)) != len(plant) or any(not w or any(c.isspace() for c in w) for w in plant):
        raise ValueError("planted words must be distinct, non-empty and without whitespace")
    agents_dir = out_dir / "agents"
    if agents_dir.exists() and any(agents_dir.iterdir()):
        if not force:
            raise FileExistsError(f"{agents_dir} is not empty (use force=True / --force)")
        shutil.rmtree(agents_dir)
    out_dir.mkdir(parents=True, exist_ok=True)

    names = [_AGENT_NAMES[i] if i < len(_AGENT_NAMES) else f"agent{i}" for i in range(agents)]
    budgets = _split_budget(messages, [1.0 / (i + 1) ** 0.6 for i in range(agents)])
    plans_by_agent = [
        _plan_agent(i, name, budgets[i], seed, sessions_per_agent, names)
        for i, name in enumerate(names)
    ]
    _assign_plants([p for ps in plans_by_agent for p in ps], plant, messages)

    stats = _Stats()
    planted: list[dict[str, Any]] = []
    sessions_by_agent: dict[str, int] = {}
    store_bytes = 0
    for ai, (agent, plans) in enumerate(zip(names, plans_by_agent, strict=True)):
        sdir = agents_dir / agent / "sessions"
        sdir.mkdir(parents=True, exist_ok=True)
        cwd = f"/home/{_rng_user(seed, ai)}/.openclaw/workspace" + (
            "" if agent == "main" else f"-{agent}"
        )
        store = open(sdir / "sessions.json", "wb")  # noqa: SIM115 - closed below
        store.write(b"{")
        first = True
        for ki, p in enumerate(plans):
            prng = random.Random(f"{seed}:{ai}:{ki}:meta")
            ms = _T0_MS + prng.randint(0, _SPAN_MS)
            model = prng.choice(_MODELS)
            lang = _LANGS[prng.choices(_NON_CJK, weights=_NON_CJK_W)[0]]
            cjk_lang = _LANGS[prng.choice(_CJK)]
            level = prng.choice(("off", "low", "medium", "high"))
            channel_prefix = p.kind in ("telegram", "group", "thread")
            last = len(p.gens) - 1
            tr: _Transcript | None = None
            for gi, (length, sid) in enumerate(zip(p.gens, p.sids, strict=True)):
                live = gi == last
                bucket = ("v1" if p.v1 else "live") if live else "reset_archives"

                def on_plant(
                    word: str,
                    eid: str,
                    role: str,
                    text: str,
                    _p: _Planned = p,
                    _sid: str = sid,
                    _agent: str = agent,
                ) -> None:
                    planted.append(
                        {
                            "word": word,
                            "agent": _agent,
                            "sessionKey": _p.key,
                            "sessionId": _sid,
                            "messageId": eid,
                            "role": role,
                            "text": text,
                        }
                    )

                srng = random.Random(f"{seed}:{ai}:{ki}:{gi}")
                path = sdir / f"{sid}.jsonl"
                tr = _Transcript(
                    path,
                    sid,
                    rng=srng,
                    stats=stats,
                    v3=not p.v1,
                    bucket=bucket,
                    start_ms=ms,
                    cwd=cwd,
                    model=model,
                    lang=lang,
                    cjk_lang=cjk_lang,
                    cjk_ratio=cjk_ratio,
                    channel_prefix=channel_prefix,
                    plants=p.plants if live else [],
                    on_plant=on_plant,
                )
                tr.run(length, force=p.force and live, thinking_level=level)
                ms = tr.ms
                if not live:
                    ms += srng.randint(60_000, 2 * 86_400_000)
                    os.replace(path, sdir / f"{sid}.jsonl.reset.{_reset_suffix(ms)}")
                    ms += srng.randint(1_000, 600_000)
            if p.plants:
                raise AssertionError(f"unplaced planted words in {p.key}: {p.plants}")
            assert tr is not None
            prov, _, model_id = tr.model
            entry: dict[str, Any] = {"sessionId": p.sids[-1], "updatedAt": tr.ms}
            entry.update(p.meta)
            entry.update(
                {
                    "modelProvider": prov,
                    "model": model_id,
                    "inputTokens": tr.tokens - tr.out_tokens,
                    "outputTokens": tr.out_tokens,
                    "totalTokens": tr.tokens,
                    "compactionCount": tr.compactions,
                }
            )
            body = json.dumps(entry, ensure_ascii=False, indent=2).replace("\n", "\n  ")
            chunk = (
                ("\n  " if first else ",\n  ") + json.dumps(p.key, ensure_ascii=False) + ": " + body
            )
            store.write(chunk.encode("utf-8"))
            first = False
        store.write(b"\n}\n")
        store_bytes += store.tell()
        store.close()
        sessions_by_agent[agent] = len(plans)

    total_idx = stats.indexable["user"] + stats.indexable["assistant"]
    manifest: dict[str, Any] = {
        "manifestVersion": MANIFEST_VERSION,
        "generator": "bench/gen_corpus.py",
        "params": {
            "messages": messages,
            "agents": agents,
            "seed": seed,
            "cjkRatio": cjk_ratio,
            "sessionsPerAgent": sessions_per_agent if sessions_per_agent is not None else "auto",
            "plant": list(plant),
        },
        "agents": names,
        "sessions": sum(sessions_by_agent.values()),
        "sessionsByAgent": sessions_by_agent,
        "files": {
            "transcripts": sum(stats.files.values()),
            "v3": stats.files["v3"],
            "v1": stats.files["v1"],
            "resetArchives": stats.files["reset_archives"],
            "sessionStores": agents,
        },
        "lines": stats.lines,
        "bytes": {
            "transcripts": stats.bytes,
            "sessionStores": store_bytes,
            "total": stats.bytes + store_bytes,
        },
        "messages": {"total": sum(stats.roles.values()), **stats.roles},
        "indexable": {
            "total": total_idx,
            "user": stats.indexable["user"],
            "assistant": stats.indexable["assistant"],
            "live": stats.indexable["live"],
            "v1": stats.indexable["v1"],
            "resetArchives": stats.indexable["reset_archives"],
        },
        "entries": dict(sorted(stats.entries.items())),
        "textMessagesByLanguage": dict(sorted(stats.text_langs.items())),
        "features": stats.features,
        "planted": planted,
    }
    (out_dir / "manifest.json").write_text(
        json.dumps(manifest, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )
    return manifest


def _rng_user(seed: int, agent_i: int) -> str:
    """A synthetic unix user name for the workspace ``cwd``."""
    return random.Random(f"{seed}:user:{agent_i}").choice(
        ("alex", "minh", "olena", "jonas", "chloe", "yuki")
    )


def _spa(value: str) -> int | None:
    if value == "auto":
        return None
    n = int(value)
    if n < 1:
        raise argparse.ArgumentTypeError("must be 'auto' or a positive integer")
    return n


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Generate a synthetic OpenClaw state directory.")
    ap.add_argument(
        "out_dir", type=Path, help="state root to create (gets agents/ and manifest.json)"
    )
    ap.add_argument(
        "--messages", type=int, required=True, help="user+assistant+toolResult messages"
    )
    ap.add_argument("--agents", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cjk-ratio", type=float, default=0.2, help="share of CJK text messages")
    ap.add_argument("--sessions-per-agent", type=_spa, default=None, metavar="auto|N")
    ap.add_argument(
        "--plant", nargs="+", default=[], metavar="WORD", help="words to plant once each"
    )
    ap.add_argument("--force", action="store_true", help="replace an existing corpus in OUT_DIR")
    ap.add_argument("-q", "--quiet", action="store_true")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    try:
        m = generate(
            args.out_dir,
            args.messages,
            agents=args.agents,
            seed=args.seed,
            cjk_ratio=args.cjk_ratio,
            plant=args.plant,
            sessions_per_agent=args.sessions_per_agent,
            force=args.force,
        )
    except (ValueError, FileExistsError) as exc:
        print(f"gen_corpus: {exc}", file=sys.stderr)
        return 2
    if not args.quiet:
        dt = time.perf_counter() - t0
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(
            f"gen_corpus: {m['messages']['total']} messages, {m['sessions']} sessions, "
            f"{m['files']['transcripts']} files, {m['lines']} lines, "
            f"{m['bytes']['total'] / 1e6:.1f} MB in {dt:.1f}s (peak RSS {rss:.0f} MiB) "
            f"-> {args.out_dir}",
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
