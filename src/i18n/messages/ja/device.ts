// 日本語, part 7 (device authorization; see ../en/device.ts). Typed by the English part.
import type { DeviceMessages } from "../en/index.js";

export const device: DeviceMessages = {
  "err.devicePending": "ユーザーはまだリクエストを許可も拒否もしていません。間隔をおいて再度ポーリングしてください。",
  "err.deviceSlowDown": "ポーリングが速すぎます。ポーリングの間隔を {seconds} 秒あけてください。",
  "err.deviceDenied": "ユーザーがリクエストを拒否しました。",
  "err.deviceExpired": "デバイスコードの有効期限が切れました。最初からやり直してください。",
  "err.deviceCodeUnknown": "デバイスコードが不明か、別のアプリのものか、使用済みです。",
  "err.deviceCodeThrottled": "該当しないコードが多く入力されました。しばらくしてから再度お試しください。",
  "err.deviceUserCodeUnknown":
    "このコードは不明か、期限切れか、使用済みです。デバイスに表示されたコードを確認してください。",
  "device.title": "デバイスを接続",
  "device.lead": "デバイスに表示されたコードを入力すると、そのデバイスがあなたとして {service} にサインインします。",
  "device.codeLabel": "デバイスのコード",
  "device.codeHint": "BCDF-GHJK のような 8 文字です。目の前にあるデバイスのコードだけを入力してください。",
  "device.continue": "続ける",
  "device.checkCode": "デバイスにこのコードが表示されていることを確認してください: {code}",
  "device.allowedTitle": "デバイスを接続しました",
  "device.allowedBody": "{app} はあなたとしてサインインしました。デバイスに戻ってください。",
  "device.deniedTitle": "デバイスは接続されませんでした",
  "device.deniedBody": "{app} のサインインは許可されませんでした。このページは閉じてかまいません。",
};
