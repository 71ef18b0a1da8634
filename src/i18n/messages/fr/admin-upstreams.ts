// Français, part 8 (the other sign-in services on /admin; see ../en/admin-upstreams.ts). Typed by the English part.
import type { AdminUpstreamsMessages } from "../en/index.js";

export const adminUpstreams: AdminUpstreamsMessages = {
  "admin.upstreams":
    "Services de connexion : ajouter des boutons « Continuer avec … » pour un fournisseur OpenID ou GitHub.",
  "adminUpstreams.title": "Autres services de connexion",
  "adminUpstreams.lead":
    "On peut se connecter ici par ces services (« Continuer avec … »). Les comptes leur restent liés quand un service est retiré.",
  "adminUpstreams.none": "Aucun autre service de connexion n’est encore proposé.",
  "adminUpstreams.fromSettings": "Défini par les réglages du service : c’est là qu’il se modifie.",
  "adminUpstreams.shadowed": "Les réglages du service nomment aussi cet identifiant : c’est le leur qui sert.",
  "adminUpstreams.unreadable":
    "Son secret client ne peut pas être lu avec le SECRET actuel du service, il n’est donc pas proposé : saisissez de nouveau le secret.",
  "adminUpstreams.kind": "Type",
  "adminUpstreams.kindOidc": "Fournisseur OpenID (trouvé par son émetteur)",
  "adminUpstreams.kindGithub": "GitHub",
  "adminUpstreams.id": "Identifiant",
  "adminUpstreams.idRule":
    "1 à 32 lettres et chiffres. Il fait partie de l’adresse de retour et ne peut pas être changé.",
  "adminUpstreams.name": "Nom sur le bouton",
  "adminUpstreams.nameRule": "1 à 40 caractères. Vide : l’identifiant (pour GitHub : « GitHub »).",
  "adminUpstreams.issuer": "Émetteur",
  "adminUpstreams.issuerRule":
    "L’émetteur d’un fournisseur OpenID (https://…), obligatoire. Pour GitHub : vide pour github.com, ou l’adresse de GitHub Enterprise Server.",
  "adminUpstreams.apiUrl": "Adresse de l’API (GitHub seulement)",
  "adminUpstreams.apiUrlRule": "Vide : https://api.github.com, ou /api/v3 de l’émetteur.",
  "adminUpstreams.clientId": "Identifiant client",
  "adminUpstreams.clientSecret": "Secret client",
  "adminUpstreams.secretRule": "Conservé chiffré, et plus jamais affiché.",
  "adminUpstreams.secretKeep": "Laissez-le vide pour garder celui qui est enregistré.",
  "adminUpstreams.callback": "Adresse de retour",
  "adminUpstreams.callbackNote": "Enregistrez {callback} comme adresse de redirection (de retour) auprès du service.",
  "adminUpstreams.add": "Ajouter un service de connexion",
  "adminUpstreams.addButton": "Ajouter",
  "adminUpstreams.all": "Tous les services de connexion",
  "adminUpstreams.edit": "Modifier",
  "adminUpstreams.editNamed": "Modifier {name}",
  "adminUpstreams.editTitle": "Service de connexion {name}",
  "adminUpstreams.save": "Enregistrer",
  "adminUpstreams.remove": "Retirer",
  "adminUpstreams.removeNamed": "Retirer {name}",
  "adminUpstreams.removeTitle": "Retirer {name} ?",
  "adminUpstreams.removeLead":
    "Comptes liés par lui : {count}. Leurs liens sont gardés : ajouter de nouveau l’identifiant {id} leur permet de se connecter de nouveau par lui.",
  "adminUpstreams.onlyWay":
    "{count} de ces comptes n’ont pas d’autre moyen de se connecter (ni mot de passe, ni clé d’accès, ni autre service) : ils ne pourront plus se connecter tant qu’il n’est pas ajouté de nouveau, ou qu’ils n’ont pas réinitialisé leur mot de passe par e-mail.",
  "adminUpstreams.notFound": "Ce service de connexion n’existe pas ici.",
  "adminUpstreams.taken":
    "L’identifiant {id} est déjà pris, par les réglages du service ou par un autre service de connexion.",
  "adminUpstreams.bad.id": "Donnez un identifiant de 1 à 32 lettres et chiffres.",
  "adminUpstreams.bad.kind": "Choisissez un fournisseur OpenID ou GitHub.",
  "adminUpstreams.bad.name": "Donnez un nom de 1 à 40 caractères, ou laissez-le vide.",
  "adminUpstreams.bad.issuer":
    "Donnez l’émetteur sous forme d’adresse http ou https absolue (un fournisseur OpenID en a besoin).",
  "adminUpstreams.bad.api_url":
    "Donnez l’adresse de l’API sous forme d’adresse http ou https absolue, et seulement pour GitHub.",
  "adminUpstreams.bad.client_id": "Donnez l’identifiant client (512 caractères au plus).",
  "adminUpstreams.bad.client_secret": "Donnez le secret client (512 caractères au plus).",
  "adminUpstreams.done.added":
    "Le service de connexion est ajouté. Enregistrez son adresse de retour auprès du service.",
  "adminUpstreams.done.changed": "Les modifications sont enregistrées.",
  "adminUpstreams.done.removed": "{name} est retiré.",
  "audit.type.upstream.added": "Service de connexion ajouté",
  "audit.type.upstream.changed": "Service de connexion modifié",
  "audit.type.upstream.removed": "Service de connexion retiré",
};
