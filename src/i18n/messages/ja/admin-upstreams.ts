// 日本語, part 8 (the other sign-in services on /admin; see ../en/admin-upstreams.ts). Typed by the English part.
import type { AdminUpstreamsMessages } from "../en/index.js";

export const adminUpstreams: AdminUpstreamsMessages = {
  "admin.upstreams": "サインインサービス: OpenID プロバイダーや GitHub の「… で続ける」ボタンを追加します。",
  "adminUpstreams.title": "ほかのサインインサービス",
  "adminUpstreams.lead":
    "これらのサービスでここにサインインできます（「… で続ける」）。サービスを削除しても、アカウントとの連携は残ります。",
  "adminUpstreams.none": "ほかのサインインサービスはまだありません。",
  "adminUpstreams.fromSettings": "サービスの設定で指定されています。変更は設定で行います。",
  "adminUpstreams.shadowed": "サービスの設定にもこの ID があります。設定のものが使われます。",
  "adminUpstreams.unreadable":
    "クライアントシークレットをサービスの現在の SECRET で読めないため、提供されていません。シークレットをもう一度入力してください。",
  "adminUpstreams.kind": "種類",
  "adminUpstreams.kindOidc": "OpenID プロバイダー（発行者から検出）",
  "adminUpstreams.kindGithub": "GitHub",
  "adminUpstreams.id": "ID",
  "adminUpstreams.idRule": "英字と数字で 1〜32 文字。コールバックアドレスの一部になり、あとから変更できません。",
  "adminUpstreams.name": "ボタンの名前",
  "adminUpstreams.nameRule": "1〜40 文字。空欄なら ID（GitHub では「GitHub」）。",
  "adminUpstreams.issuer": "発行者",
  "adminUpstreams.issuerRule":
    "OpenID プロバイダーの発行者（https://…）、必須です。GitHub では github.com なら空欄、または GitHub Enterprise Server のアドレス。",
  "adminUpstreams.apiUrl": "API アドレス（GitHub のみ）",
  "adminUpstreams.apiUrlRule": "空欄なら https://api.github.com、または発行者の /api/v3。",
  "adminUpstreams.clientId": "クライアント ID",
  "adminUpstreams.clientSecret": "クライアントシークレット",
  "adminUpstreams.secretRule": "暗号化して保存され、二度と表示されません。",
  "adminUpstreams.secretKeep": "保存済みのものを使い続けるには空欄のままにします。",
  "adminUpstreams.callback": "コールバックアドレス",
  "adminUpstreams.callbackNote":
    "{callback} をサービス側でリダイレクト（コールバック）アドレスとして登録してください。",
  "adminUpstreams.add": "サインインサービスを追加",
  "adminUpstreams.addButton": "追加",
  "adminUpstreams.all": "すべてのサインインサービス",
  "adminUpstreams.edit": "変更",
  "adminUpstreams.editNamed": "{name} を変更",
  "adminUpstreams.editTitle": "サインインサービス {name}",
  "adminUpstreams.save": "保存",
  "adminUpstreams.remove": "削除",
  "adminUpstreams.removeNamed": "{name} を削除",
  "adminUpstreams.removeTitle": "{name} を削除しますか？",
  "adminUpstreams.removeLead":
    "このサービスで連携しているアカウント: {count}。連携は残ります。ID {id} をもう一度追加すると、またこのサービスでサインインできます。",
  "adminUpstreams.onlyWay":
    "このうち {count} 件のアカウントには、ほかにサインインする方法がありません（パスワードもパスキーもほかのサービスもなし）。もう一度追加されるか、メールでパスワードを再設定するまでサインインできません。",
  "adminUpstreams.notFound": "そのサインインサービスはここにはありません。",
  "adminUpstreams.taken": "ID {id} は、サービスの設定かほかのサインインサービスですでに使われています。",
  "adminUpstreams.bad.id": "英字と数字で 1〜32 文字の ID を入力してください。",
  "adminUpstreams.bad.kind": "OpenID プロバイダーか GitHub を選んでください。",
  "adminUpstreams.bad.name": "1〜40 文字の名前を入力するか、空欄にしてください。",
  "adminUpstreams.bad.issuer":
    "発行者を http または https の絶対アドレスで入力してください（OpenID プロバイダーでは必須）。",
  "adminUpstreams.bad.api_url": "API アドレスを http または https の絶対アドレスで入力してください（GitHub のみ）。",
  "adminUpstreams.bad.client_id": "クライアント ID を入力してください（512 文字まで）。",
  "adminUpstreams.bad.client_secret": "クライアントシークレットを入力してください（512 文字まで）。",
  "adminUpstreams.done.added": "サインインサービスを追加しました。サービス側でコールバックアドレスを登録してください。",
  "adminUpstreams.done.changed": "変更を保存しました。",
  "adminUpstreams.done.removed": "{name} を削除しました。",
  "audit.type.upstream.added": "サインインサービスを追加",
  "audit.type.upstream.changed": "サインインサービスを変更",
  "audit.type.upstream.removed": "サインインサービスを削除",
};
