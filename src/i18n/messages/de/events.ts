// Deutsch, part 5 (identity events; see ../en/events.ts). Typed by the English part.
import type { EventsMessages } from "../en/index.js";

export const events: EventsMessages = {
  "err.webhookUrlProblem": "Webhook-URL: {problem}",
  "err.backchannelLogoutProblem": "Back-Channel-Logout-URL: {problem}",
  "err.webhookChannels":
    "Webhook-Kanäle: jeder Eintrag ist ein Kanalname oder ein Präfix mit * am Ende („orders:*“; „*“ für alle Kanäle); höchstens {max}.",
  "dev.events": "Identitätsereignisse",
  "dev.eventsLead":
    "Die App benachrichtigen, wenn einer ihrer Nutzer die Einwilligung widerruft, sich abmeldet, deaktiviert oder gelöscht wird.",
  "dev.webhookUrl": "Webhook-URL",
  "dev.webhookUrlHint":
    "Optional: Die Ereignisse werden per POST hierher gesendet, signiert nach Standard Webhooks. Leer: keine.",
  "dev.newWebhookSecret": "Neues Signaturgeheimnis erzeugen",
  "dev.webhookChannels": "An den Webhook gesendete Kanäle",
  "dev.webhookChannelsHint":
    "Optional: In diesen Kanälen veröffentlichte Nachrichten werden auch per POST an den Webhook gesendet, als channel.message-Ereignisse. Namen oder Präfixe mit * am Ende, durch Kommas getrennt. Leer: keine.",
  "dev.backchannelLogout": "Back-Channel-Logout-URL",
  "dev.backchannelLogoutHint":
    "Optional: OpenID-Connect-Back-Channel-Logout-Tokens werden hierher gesendet, wenn die Sitzung eines Nutzers endet.",
  "dev.eventsSubmit": "Ereignis-Einstellungen speichern",
  "dev.eventsSaved": "Die Ereignis-Einstellungen von {app} wurden gespeichert.",
  "dev.webhookSecret": "Kopieren Sie das Signaturgeheimnis des Webhooks jetzt: Es wird nicht wieder angezeigt.",
  "dev.deliveries": "Letzte Zustellungen",
  "dev.noDeliveries": "Noch nichts gesendet.",
  "dev.deliveryWhen": "Wann",
  "dev.deliveryEvent": "Ereignis",
  "dev.deliveryTo": "An",
  "dev.deliveryAttempt": "Versuch",
  "dev.deliveryAnswer": "Antwort",
  "dev.deliveryOutcome": "Ergebnis",
  "dev.outcomeDelivered": "zugestellt",
  "dev.outcomeRetrying": "wird wiederholt",
  "dev.outcomeFailed": "aufgegeben",
  "dev.kindWebhook": "Webhook",
  "dev.kindBackchannel": "Back-Channel-Logout",
  "dev.failRedirect": "eine Weiterleitung (nicht gefolgt)",
  "dev.failTimeout": "keine Antwort innerhalb von {ms} ms",
  "dev.failNotPublic": "nicht gesendet: Die Adresse ist nicht öffentlich (DELIVERY_ALLOW_PRIVATE=true erlaubt es)",
  "dev.failConnection": "Verbindung fehlgeschlagen",
  "dev.failConnectionCode": "Verbindung fehlgeschlagen ({code})",
  "dev.failSecret": "Das Webhook-Geheimnis lässt sich nicht öffnen (SECRET wurde geändert): Die URL erneut setzen",
};
