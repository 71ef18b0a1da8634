// Deutsch, part 7 (device authorization; see ../en/device.ts). Typed by the English part.
import type { DeviceMessages } from "../en/index.js";

export const device: DeviceMessages = {
  "err.devicePending":
    "Der Nutzer hat die Anfrage noch nicht erlaubt oder abgelehnt; nach dem Intervall erneut abfragen.",
  "err.deviceSlowDown": "Zu häufige Abfragen: zwischen zwei Abfragen {seconds} Sekunden warten.",
  "err.deviceDenied": "Der Nutzer hat die Anfrage abgelehnt.",
  "err.deviceExpired": "Der Gerätecode ist abgelaufen; bitte neu beginnen.",
  "err.deviceCodeUnknown": "Der Gerätecode ist unbekannt, gehört einer anderen App oder wurde bereits verwendet.",
  "err.deviceCodeThrottled": "Zu viele Codes eingegeben, die zu nichts passen; bitte später erneut versuchen.",
  "err.deviceUserCodeUnknown":
    "Dieser Code ist unbekannt, abgelaufen oder bereits verwendet. Prüfen Sie den Code, den Ihr Gerät anzeigt.",
  "device.title": "Gerät verbinden",
  "device.lead":
    "Geben Sie den Code ein, den Ihr Gerät anzeigt, damit es sich in Ihrem Namen bei {service} anmelden kann.",
  "device.codeLabel": "Code von Ihrem Gerät",
  "device.codeHint": "8 Buchstaben, etwa BCDF-GHJK. Geben Sie nur den Code eines Geräts ein, das vor Ihnen liegt.",
  "device.continue": "Weiter",
  "device.checkCode": "Prüfen Sie, dass Ihr Gerät diesen Code anzeigt: {code}",
  "device.allowedTitle": "Gerät verbunden",
  "device.allowedBody": "{app} ist in Ihrem Namen angemeldet. Sie können zu Ihrem Gerät zurückkehren.",
  "device.deniedTitle": "Gerät nicht verbunden",
  "device.deniedBody": "{app} durfte sich nicht anmelden. Sie können diese Seite schließen.",
};
