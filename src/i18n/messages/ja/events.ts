// 日本語, part 5 (identity events; see ../en/events.ts). Typed by the English part.
import type { EventsMessages } from "../en/index.js";

export const events: EventsMessages = {
  "err.webhookUrlProblem": "Webhook URL：{problem}",
  "err.backchannelLogoutProblem": "バックチャネル・ログアウト URL：{problem}",
  "err.webhookChannels":
    "Webhook のチャンネル：それぞれチャンネル名か、* で終わる接頭辞（「orders:*」、すべてのチャンネルなら「*」）で、最大 {max} 件です。",
  "dev.events": "ID イベント",
  "dev.eventsLead":
    "ユーザーが同意を取り消したとき、ログアウトしたとき、無効化または削除されたときにアプリへ知らせます。",
  "dev.webhookUrl": "Webhook の URL",
  "dev.webhookUrlHint": "任意：イベントを Standard Webhooks の方式で署名してここへ POST します。空欄：なし。",
  "dev.newWebhookSecret": "新しい署名シークレットを作成する",
  "dev.webhookChannels": "Webhook に送るチャンネル",
  "dev.webhookChannelsHint":
    "任意：これらのチャンネルに公開されたメッセージも、channel.message イベントとして Webhook に POST されます。名前か * で終わる接頭辞をカンマで区切って入力します。空欄：なし。",
  "dev.backchannelLogout": "バックチャネル・ログアウト URL",
  "dev.backchannelLogoutHint":
    "任意：ユーザーのセッションが終わると、OpenID Connect Back-Channel Logout のトークンをここへ POST します。",
  "dev.eventsSubmit": "イベント設定を保存",
  "dev.eventsSaved": "{app} のイベント設定を保存しました。",
  "dev.webhookSecret": "Webhook の署名シークレットを今コピーしてください。再表示されません。",
  "dev.deliveries": "最近の送信",
  "dev.noDeliveries": "まだ何も送信していません。",
  "dev.deliveryWhen": "日時",
  "dev.deliveryEvent": "イベント",
  "dev.deliveryTo": "送信先",
  "dev.deliveryAttempt": "試行",
  "dev.deliveryAnswer": "応答",
  "dev.deliveryOutcome": "結果",
  "dev.outcomeDelivered": "配信済み",
  "dev.outcomeRetrying": "再試行予定",
  "dev.outcomeFailed": "断念",
  "dev.kindWebhook": "Webhook",
  "dev.kindBackchannel": "バックチャネル・ログアウト",
  "dev.failRedirect": "リダイレクト（追従しません）",
  "dev.failTimeout": "{ms} ミリ秒以内に応答がありません",
  "dev.failNotPublic":
    "送信しません：アドレスが公開アドレスではありません（DELIVERY_ALLOW_PRIVATE=true で許可されます）",
  "dev.failConnection": "接続に失敗しました",
  "dev.failConnectionCode": "接続に失敗しました（{code}）",
  "dev.failSecret": "Webhook の署名シークレットを開けません（SECRET が変わりました）：URL を設定し直してください",
};
