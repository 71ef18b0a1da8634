// Français, part 5 (identity events; see ../en/events.ts). Typed by the English part.
import type { EventsMessages } from "../en/index.js";

export const events: EventsMessages = {
  "err.webhookUrlProblem": "URL du webhook : {problem}",
  "err.backchannelLogoutProblem": "URL de déconnexion back-channel : {problem}",
  "err.webhookChannels":
    "Canaux du webhook : chacun est un nom de canal, ou un préfixe suivi de * (« orders:* » ; « * » pour tous les canaux) ; {max} au plus.",
  "dev.events": "Événements d’identité",
  "dev.eventsLead":
    "Prévenir l’application quand l’un de ses utilisateurs retire son consentement, se déconnecte, est désactivé ou supprimé.",
  "dev.webhookUrl": "URL du webhook",
  "dev.webhookUrlHint":
    "Facultatif : les événements y sont envoyés par POST, signés à la manière de Standard Webhooks. Vide : aucun.",
  "dev.newWebhookSecret": "Créer un nouveau secret de signature",
  "dev.webhookChannels": "Canaux envoyés au webhook",
  "dev.webhookChannelsHint":
    "Facultatif : les messages publiés sur ces canaux sont aussi envoyés au webhook par POST, comme événements channel.message. Des noms, ou des préfixes suivis de *, séparés par des virgules. Vide : aucun.",
  "dev.backchannelLogout": "URL de déconnexion back-channel",
  "dev.backchannelLogoutHint":
    "Facultatif : les jetons OpenID Connect Back-Channel Logout y sont envoyés par POST quand la session d’un utilisateur prend fin.",
  "dev.eventsSubmit": "Enregistrer les événements",
  "dev.eventsSaved": "Réglages des événements de {app} enregistrés.",
  "dev.webhookSecret": "Copiez maintenant le secret de signature du webhook : il ne sera plus affiché.",
  "dev.deliveries": "Derniers envois",
  "dev.noDeliveries": "Rien n’a encore été envoyé.",
  "dev.deliveryWhen": "Quand",
  "dev.deliveryEvent": "Événement",
  "dev.deliveryTo": "Vers",
  "dev.deliveryAttempt": "Tentative",
  "dev.deliveryAnswer": "Réponse",
  "dev.deliveryOutcome": "Résultat",
  "dev.outcomeDelivered": "remis",
  "dev.outcomeRetrying": "sera réessayé",
  "dev.outcomeFailed": "abandonné",
  "dev.kindWebhook": "webhook",
  "dev.kindBackchannel": "déconnexion back-channel",
  "dev.failRedirect": "une redirection (non suivie)",
  "dev.failTimeout": "aucune réponse en {ms} ms",
  "dev.failNotPublic": "non envoyé : l’adresse n’est pas publique (DELIVERY_ALLOW_PRIVATE=true l’autorise)",
  "dev.failConnection": "échec de la connexion",
  "dev.failConnectionCode": "échec de la connexion ({code})",
  "dev.failSecret": "le secret du webhook ne peut pas être ouvert (SECRET a changé) : enregistrez l’URL à nouveau",
};
