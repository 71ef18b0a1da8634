// Français, part 3 (sign-up invitations; see ../en/invitations.ts). Typed by the English part.
import type { InvitationsMessages } from "../en/index.js";

export const invitations: InvitationsMessages = {
  "err.invitationGone":
    "Ce lien d’invitation ne fonctionne plus : il a été utilisé ou révoqué, ou il a expiré. Demandez-en un nouveau à la personne qui vous a invité.",
  "err.invitationEmail":
    "Cette invitation est destinée à une autre adresse e-mail : saisissez l’adresse avec laquelle vous avez été invité.",
  "signup.inviteTitle": "L’inscription se fait sur invitation",
  "signup.inviteText":
    "Les nouveaux comptes sur {service} se créent avec un lien d’invitation. Demandez-en un à un administrateur.",
  "signup.invitedFor": "Cette invitation est destinée à {email} : utilisez cette adresse.",
  "admin.invitations": "Invitations : créer des liens d’inscription à usage unique.",
  "adminInvitations.title": "Invitations d’inscription",
  "adminInvitations.lead":
    "Chaque lien d’invitation crée un seul compte et fonctionne 7 jours. Le lien n’est affiché qu’une fois, à sa création.",
  "adminInvitations.notInviteMode":
    "L’inscription n’est pas sur invitation en ce moment : les liens créés ici ne fonctionnent que lorsque SIGNUP vaut invite.",
  "adminInvitations.newTitle": "Nouvelle invitation",
  "adminInvitations.email": "Adresse e-mail (facultative)",
  "adminInvitations.emailHint": "Si elle est indiquée, le compte doit être créé avec cette adresse.",
  "adminInvitations.create": "Créer un lien d’invitation",
  "adminInvitations.created":
    "Le lien d’invitation est ci-dessous. Il n’est affiché que cette fois : copiez-le maintenant et envoyez-le à la personne invitée.",
  "adminInvitations.link": "Lien d’invitation",
  "adminInvitations.pending": "Invitations en attente",
  "adminInvitations.none": "Aucune invitation en attente.",
  "adminInvitations.createdBy": "Créée par",
  "adminInvitations.createdAt": "Créée",
  "adminInvitations.expires": "Expire",
  "adminInvitations.for": "Pour",
  "adminInvitations.anyone": "Tout le monde",
  "adminInvitations.revoke": "Révoquer",
  "adminInvitations.revokeLabel": "Révoquer l’invitation créée {time}",
  "adminInvitations.revoked": "L’invitation est révoquée : son lien ne fonctionne plus.",
  "adminInvitations.gone": "Cette invitation a déjà été utilisée ou révoquée, ou elle a expiré.",
  "adminInvitations.operator": "l’opérateur (ligne de commande)",
  // SIGNUP_EMAIL_DOMAINS: sign-up at the listed domains, held back from apps until confirmed.
  "err.emailDomain": "Utilisez une adresse e-mail de l’un de ces domaines : {domains}.",
  "err.confirmEmailFirst": "L’utilisateur doit confirmer son adresse e-mail avant de se connecter aux applications.",
  "signup.emailDomainsHint":
    "Obligatoire : une adresse en {domains}. Vous la confirmez avec un lien envoyé par e-mail ; les applications vous sont ouvertes une fois l’adresse confirmée.",
  "confirmFirst.title": "Confirmez d’abord votre adresse e-mail",
  "confirmFirst.body": "{service} vous ouvre {app} une fois votre adresse e-mail confirmée.",
  "confirmFirst.sentTo": "Un lien de confirmation a été envoyé à {email}. Ouvrez-le, puis revenez sur cette page.",
  "confirmFirst.resend": "Envoyer un nouveau lien de confirmation",
  "confirmFirst.noAddress":
    "Votre compte n’a pas d’adresse e-mail : ajoutez-en une sur votre compte, puis confirmez-la.",
  "confirmFirst.account": "Gérer votre adresse e-mail",
  "dev.confirmEmailFirst":
    "Confirmez votre adresse e-mail pour enregistrer des applications : ouvrez le lien que nous vous avons envoyé.",
};
