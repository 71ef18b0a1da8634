// Deutsch, part 8 (the other sign-in services on /admin; see ../en/admin-upstreams.ts). Typed by the English part.
import type { AdminUpstreamsMessages } from "../en/index.js";

export const adminUpstreams: AdminUpstreamsMessages = {
  "admin.upstreams": "Anmeldedienste: „Weiter mit …“-Schaltflächen für einen OpenID-Anbieter oder GitHub hinzufügen.",
  "adminUpstreams.title": "Andere Anmeldedienste",
  "adminUpstreams.lead":
    "Über diese Dienste kann man sich hier anmelden („Weiter mit …“). Konten bleiben mit ihnen verknüpft, wenn ein Dienst entfernt wird.",
  "adminUpstreams.none": "Es wird noch kein anderer Anmeldedienst angeboten.",
  "adminUpstreams.fromSettings": "In den Einstellungen des Dienstes festgelegt: dort ändern.",
  "adminUpstreams.shadowed": "Die Einstellungen des Dienstes nennen diese Kennung auch: deren Eintrag gilt.",
  "adminUpstreams.unreadable":
    "Sein Client-Geheimnis lässt sich mit dem aktuellen SECRET des Dienstes nicht lesen, daher wird er nicht angeboten: Geben Sie das Geheimnis erneut ein.",
  "adminUpstreams.kind": "Art",
  "adminUpstreams.kindOidc": "OpenID-Anbieter (über seinen Aussteller gefunden)",
  "adminUpstreams.kindGithub": "GitHub",
  "adminUpstreams.id": "Kennung",
  "adminUpstreams.idRule":
    "1 bis 32 Buchstaben und Ziffern. Sie ist Teil der Rückrufadresse und lässt sich nicht ändern.",
  "adminUpstreams.name": "Name auf der Schaltfläche",
  "adminUpstreams.nameRule": "1 bis 40 Zeichen. Leer: die Kennung (bei GitHub: „GitHub“).",
  "adminUpstreams.issuer": "Aussteller",
  "adminUpstreams.issuerRule":
    "Der Aussteller eines OpenID-Anbieters (https://…), erforderlich. Bei GitHub: leer für github.com, oder die Adresse von GitHub Enterprise Server.",
  "adminUpstreams.apiUrl": "API-Adresse (nur GitHub)",
  "adminUpstreams.apiUrlRule": "Leer: https://api.github.com, oder /api/v3 des Ausstellers.",
  "adminUpstreams.clientId": "Client-ID",
  "adminUpstreams.clientSecret": "Client-Geheimnis",
  "adminUpstreams.secretRule": "Verschlüsselt gespeichert und nie wieder angezeigt.",
  "adminUpstreams.secretKeep": "Leer lassen, um das gespeicherte zu behalten.",
  "adminUpstreams.callback": "Rückrufadresse",
  "adminUpstreams.callbackNote": "Tragen Sie {callback} beim Dienst als Weiterleitungs- (Rückruf-)Adresse ein.",
  "adminUpstreams.add": "Anmeldedienst hinzufügen",
  "adminUpstreams.addButton": "Hinzufügen",
  "adminUpstreams.all": "Alle Anmeldedienste",
  "adminUpstreams.edit": "Ändern",
  "adminUpstreams.editNamed": "{name} ändern",
  "adminUpstreams.editTitle": "Anmeldedienst {name}",
  "adminUpstreams.save": "Speichern",
  "adminUpstreams.remove": "Entfernen",
  "adminUpstreams.removeNamed": "{name} entfernen",
  "adminUpstreams.removeTitle": "{name} entfernen?",
  "adminUpstreams.removeLead":
    "Darüber verknüpfte Konten: {count}. Ihre Verknüpfungen bleiben: Wird die Kennung {id} wieder hinzugefügt, können sie sich wieder darüber anmelden.",
  "adminUpstreams.onlyWay":
    "{count} dieser Konten haben keinen anderen Weg zur Anmeldung (kein Passwort, kein Passkey, kein anderer Dienst): Sie können sich erst wieder anmelden, wenn er wieder hinzugefügt wird oder sie ihr Passwort per E-Mail zurücksetzen.",
  "adminUpstreams.notFound": "Diesen Anmeldedienst gibt es hier nicht.",
  "adminUpstreams.taken":
    "Die Kennung {id} ist bereits vergeben, von den Einstellungen des Dienstes oder einem anderen Anmeldedienst.",
  "adminUpstreams.bad.id": "Geben Sie eine Kennung aus 1 bis 32 Buchstaben und Ziffern an.",
  "adminUpstreams.bad.kind": "Wählen Sie einen OpenID-Anbieter oder GitHub.",
  "adminUpstreams.bad.name": "Geben Sie einen Namen mit 1 bis 40 Zeichen an, oder lassen Sie ihn leer.",
  "adminUpstreams.bad.issuer":
    "Geben Sie den Aussteller als absolute http- oder https-Adresse an (ein OpenID-Anbieter braucht einen).",
  "adminUpstreams.bad.api_url":
    "Geben Sie die API-Adresse als absolute http- oder https-Adresse an, und nur für GitHub.",
  "adminUpstreams.bad.client_id": "Geben Sie die Client-ID an (bis zu 512 Zeichen).",
  "adminUpstreams.bad.client_secret": "Geben Sie das Client-Geheimnis an (bis zu 512 Zeichen).",
  "adminUpstreams.done.added": "Der Anmeldedienst ist hinzugefügt. Tragen Sie seine Rückrufadresse beim Dienst ein.",
  "adminUpstreams.done.changed": "Die Änderungen sind gespeichert.",
  "adminUpstreams.done.removed": "{name} ist entfernt.",
  "audit.type.upstream.added": "Anmeldedienst hinzugefügt",
  "audit.type.upstream.changed": "Anmeldedienst geändert",
  "audit.type.upstream.removed": "Anmeldedienst entfernt",
};
