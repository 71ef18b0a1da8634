// Français, part 6 (upstream providers; see ../en/upstreams.ts). Typed by the English part.
import type { UpstreamsMessages } from "../en/index.js";

export const upstreams: UpstreamsMessages = {
  "err.upstreamExpired":
    "Cette connexion a été commencée il y a trop longtemps, ou est déjà terminée. Recommencez depuis la page de connexion.",
  "err.upstreamUnreachable":
    "L’autre service de connexion est injoignable pour le moment. Réessayez plus tard, ou connectez-vous autrement.",
  "err.upstreamRefused": "L’autre service de connexion ne vous a pas connecté. Réessayez, ou connectez-vous autrement.",
  "err.upstreamInvalid":
    "La réponse de l’autre service de connexion n’était pas fiable : rien n’a été fait. Réessayez, ou connectez-vous autrement.",
  "err.upstreamThrottled":
    "Trop de connexions par un autre service commencées depuis cette adresse ; réessayez plus tard.",
  "err.upstreamUnknown": "Ce service de connexion n’est pas proposé ici.",
  "err.upstreamTaken": "Cette identité est déjà liée à un autre compte.",
  "err.upstreamLastWay":
    "C’est le dernier moyen de vous connecter à votre compte : définissez un mot de passe ou ajoutez une clé d’accès avant de le délier.",
  "err.upstreamSignupClosed":
    "Aucun compte n’est lié à cette identité, et aucun compte ne peut être créé ici pour le moment. Connectez-vous à votre compte, puis liez-la depuis la page de votre compte.",
  "upstream.continueWith": "Continuer avec {name}",
  "upstream.failedTitle": "La connexion n’a pas abouti",
  "account.upstreamsTitle": "Autres services de connexion",
  "account.upstreamsNone": "Aucun autre service ne vous connecte à ce compte.",
  "account.upstreamLink": "Ajouter {name}",
  "account.upstreamUnlink": "Délier",
  "account.upstreamOf": "{name} : {who}",
};
