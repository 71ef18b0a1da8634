// 日本語, part 6 (upstream providers; see ../en/upstreams.ts). Typed by the English part.
import type { UpstreamsMessages } from "../en/index.js";

export const upstreams: UpstreamsMessages = {
  "err.upstreamExpired":
    "このサインインは開始から時間が経ちすぎたか、すでに完了しています。サインインページからやり直してください。",
  "err.upstreamUnreachable":
    "他のサインインサービスに現在接続できません。後でもう一度試すか、別の方法でサインインしてください。",
  "err.upstreamRefused":
    "他のサインインサービスでサインインできませんでした。もう一度試すか、別の方法でサインインしてください。",
  "err.upstreamInvalid":
    "他のサインインサービスの応答を信頼できなかったため、何も行いませんでした。もう一度試すか、別の方法でサインインしてください。",
  "err.upstreamThrottled":
    "このアドレスから開始された他のサービスによるサインインが多すぎます。しばらくしてからお試しください。",
  "err.upstreamUnknown": "このサインインサービスはここでは提供されていません。",
  "err.upstreamTaken": "このIDはすでに別のアカウントにリンクされています。",
  "err.upstreamLastWay":
    "これはアカウントにサインインする最後の方法です。リンクを解除する前にパスワードを設定するかパスキーを追加してください。",
  "err.upstreamSignupClosed":
    "このIDにリンクされたアカウントはなく、現在ここでは新しいアカウントを作成できません。アカウントにサインインしてから、アカウントページでリンクしてください。",
  "upstream.continueWith": "{name}で続行",
  "upstream.failedTitle": "サインインできませんでした",
  "account.upstreamsTitle": "他のサインインサービス",
  "account.upstreamsNone": "このアカウントにサインインできる他のサービスはありません。",
  "account.upstreamLink": "{name}を追加",
  "account.upstreamUnlink": "リンクを解除",
  "account.upstreamOf": "{name}: {who}",
};
