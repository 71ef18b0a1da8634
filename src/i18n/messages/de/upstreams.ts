// Deutsch, part 6 (upstream providers; see ../en/upstreams.ts). Typed by the English part.
import type { UpstreamsMessages } from "../en/index.js";

export const upstreams: UpstreamsMessages = {
  "err.upstreamExpired":
    "Diese Anmeldung wurde vor zu langer Zeit begonnen oder ist bereits abgeschlossen. Beginnen Sie erneut auf der Anmeldeseite.",
  "err.upstreamUnreachable":
    "Der andere Anmeldedienst ist gerade nicht erreichbar. Versuchen Sie es später erneut oder melden Sie sich anders an.",
  "err.upstreamRefused":
    "Der andere Anmeldedienst hat Sie nicht angemeldet. Versuchen Sie es erneut oder melden Sie sich anders an.",
  "err.upstreamInvalid":
    "Der Antwort des anderen Anmeldedienstes war nicht zu trauen, daher wurde nichts getan. Versuchen Sie es erneut oder melden Sie sich anders an.",
  "err.upstreamThrottled":
    "Zu viele Anmeldungen über einen anderen Dienst von dieser Adresse begonnen; versuchen Sie es später noch einmal.",
  "err.upstreamUnknown": "Dieser Anmeldedienst wird hier nicht angeboten.",
  "err.upstreamTaken": "Diese Identität ist bereits mit einem anderen Konto verknüpft.",
  "err.upstreamLastWay":
    "Das ist der letzte Weg, sich bei Ihrem Konto anzumelden: Legen Sie ein Passwort fest oder fügen Sie einen Passkey hinzu, bevor Sie die Verknüpfung lösen.",
  "err.upstreamSignupClosed":
    "Mit dieser Identität ist kein Konto verknüpft, und neue Konten können hier gerade nicht erstellt werden. Melden Sie sich bei Ihrem Konto an und verknüpfen Sie sie dann auf Ihrer Kontoseite.",
  "upstream.continueWith": "Weiter mit {name}",
  "upstream.failedTitle": "Die Anmeldung hat nicht geklappt",
  "account.upstreamsTitle": "Andere Anmeldedienste",
  "account.upstreamsNone": "Kein anderer Dienst meldet Sie bei diesem Konto an.",
  "account.upstreamLink": "{name} hinzufügen",
  "account.upstreamUnlink": "Verknüpfung lösen",
  "account.upstreamOf": "{name}: {who}",
};
