// 日本語, part 3 (sign-up invitations; see ../en/invitations.ts). Typed by the English part.
import type { InvitationsMessages } from "../en/index.js";

export const invitations: InvitationsMessages = {
  "err.invitationGone":
    "この招待リンクはもう使えません。使用済みか取り消されたか、有効期限が切れています。招待した人に新しいリンクを依頼してください。",
  "err.invitationEmail": "この招待は別のメールアドレス宛てです。招待されたアドレスを入力してください。",
  "signup.inviteTitle": "登録は招待制です",
  "signup.inviteText": "{service} の新しいアカウントは招待リンクで作成します。管理者に依頼してください。",
  "signup.invitedFor": "この招待は {email} 宛てです。そのアドレスを使ってください。",
  "admin.invitations": "招待: 一度だけ使える登録リンクを作成します。",
  "adminInvitations.title": "招待",
  "adminInvitations.lead":
    "招待リンクはそれぞれ 1 つのアカウントを作成でき、7 日間有効です。リンクは作成時に一度だけ表示されます。",
  "adminInvitations.notInviteMode":
    "現在、登録は招待制ではありません。ここで作成したリンクは SIGNUP が invite のときだけ使えます。",
  "adminInvitations.newTitle": "新しい招待",
  "adminInvitations.email": "メールアドレス(任意)",
  "adminInvitations.emailHint": "指定すると、アカウントはこのアドレスで作成する必要があります。",
  "adminInvitations.create": "招待リンクを作成",
  "adminInvitations.created":
    "招待リンクは下にあります。表示されるのはこの一度だけです。今すぐコピーして、招待する人に送ってください。",
  "adminInvitations.link": "招待リンク",
  "adminInvitations.pending": "保留中の招待",
  "adminInvitations.none": "保留中の招待はありません。",
  "adminInvitations.createdBy": "作成者",
  "adminInvitations.createdAt": "作成日時",
  "adminInvitations.expires": "有効期限",
  "adminInvitations.for": "宛先",
  "adminInvitations.anyone": "誰でも",
  "adminInvitations.revoke": "取り消す",
  "adminInvitations.revokeLabel": "{time} に作成した招待を取り消す",
  "adminInvitations.revoked": "招待を取り消しました。そのリンクはもう使えません。",
  "adminInvitations.gone": "その招待は使用済みか取り消されたか、有効期限が切れています。",
  "adminInvitations.operator": "運営者(コマンドライン)",
  // SIGNUP_EMAIL_DOMAINS: sign-up at the listed domains, held back from apps until confirmed.
  "err.emailDomain": "次のいずれかのドメインのメールアドレスを使ってください: {domains}。",
  "err.confirmEmailFirst": "アプリにサインインする前に、ユーザーはメールアドレスを確認する必要があります。",
  "signup.emailDomainsHint":
    "必須: {domains} のアドレス。メールで送るリンクで確認します。確認が済むとアプリを使えます。",
  "confirmFirst.title": "まずメールアドレスを確認してください",
  "confirmFirst.body": "メールアドレスの確認が済むと、{service} で {app} を使えるようになります。",
  "confirmFirst.sentTo": "{email} に確認リンクを送りました。リンクを開いてから、このページに戻ってください。",
  "confirmFirst.resend": "確認リンクをもう一度送る",
  "confirmFirst.noAddress": "アカウントにメールアドレスがありません。アカウントで追加して確認してください。",
  "confirmFirst.account": "メールアドレスを管理",
  "dev.confirmEmailFirst": "アプリを登録するには、メールアドレスを確認してください。お送りしたリンクを開いてください。",
};
