// Español, part 3 (sign-up invitations; see ../en/invitations.ts). Typed by the English part.
import type { InvitationsMessages } from "../en/index.js";

export const invitations: InvitationsMessages = {
  "err.invitationGone":
    "Este enlace de invitación ya no funciona: se usó o se revocó, o ha caducado. Pida uno nuevo a quien le invitó.",
  "err.invitationEmail":
    "Esta invitación es para otra dirección de correo: escriba la dirección con la que le invitaron.",
  "signup.inviteTitle": "El registro es por invitación",
  "signup.inviteText":
    "Las cuentas nuevas en {service} se crean con un enlace de invitación. Pida uno a un administrador.",
  "signup.invitedFor": "Esta invitación es para {email}: use esa dirección.",
  "admin.invitations": "Invitaciones: crear enlaces de registro de un solo uso.",
  "adminInvitations.title": "Invitaciones",
  "adminInvitations.lead":
    "Cada enlace de invitación crea una cuenta y funciona 7 días. El enlace se muestra una sola vez, al crearlo.",
  "adminInvitations.notInviteMode":
    "Ahora el registro no es por invitación: los enlaces creados aquí solo funcionan mientras SIGNUP sea invite.",
  "adminInvitations.newTitle": "Nueva invitación",
  "adminInvitations.email": "Dirección de correo (opcional)",
  "adminInvitations.emailHint": "Si se indica, la cuenta debe crearse con esta dirección.",
  "adminInvitations.create": "Crear un enlace de invitación",
  "adminInvitations.created":
    "El enlace de invitación está abajo. Solo se muestra esta vez: cópielo ahora y envíelo a la persona invitada.",
  "adminInvitations.link": "Enlace de invitación",
  "adminInvitations.pending": "Invitaciones pendientes",
  "adminInvitations.none": "No hay invitaciones pendientes.",
  "adminInvitations.createdBy": "Creada por",
  "adminInvitations.createdAt": "Creada",
  "adminInvitations.expires": "Caduca",
  "adminInvitations.for": "Para",
  "adminInvitations.anyone": "Cualquiera",
  "adminInvitations.revoke": "Revocar",
  "adminInvitations.revokeLabel": "Revocar la invitación creada el {time}",
  "adminInvitations.revoked": "La invitación está revocada: su enlace ya no funciona.",
  "adminInvitations.gone": "Esa invitación ya se usó o se revocó, o ha caducado.",
  "adminInvitations.operator": "el operador (línea de comandos)",
  // SIGNUP_EMAIL_DOMAINS: sign-up at the listed domains, held back from apps until confirmed.
  "err.emailDomain": "Usa una dirección de correo de uno de estos dominios: {domains}.",
  "err.confirmEmailFirst": "El usuario debe confirmar su dirección de correo antes de iniciar sesión en aplicaciones.",
  "signup.emailDomainsHint":
    "Obligatorio: una dirección en {domains}. La confirmas con un enlace que te enviamos por correo; las aplicaciones se abren para ti cuando esté confirmada.",
  "confirmFirst.title": "Confirma primero tu correo",
  "confirmFirst.body": "{service} te abre {app} cuando tu dirección de correo esté confirmada.",
  "confirmFirst.sentTo": "Se envió un enlace de confirmación a {email}. Ábrelo y vuelve a esta página.",
  "confirmFirst.resend": "Enviar un nuevo enlace de confirmación",
  "confirmFirst.noAddress": "Tu cuenta no tiene dirección de correo: añade una en tu cuenta y confírmala.",
  "confirmFirst.account": "Gestionar tu dirección de correo",
  "dev.confirmEmailFirst":
    "Confirma tu dirección de correo para registrar aplicaciones: abre el enlace que te enviamos.",
};
