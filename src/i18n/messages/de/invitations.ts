// Deutsch, part 3 (sign-up invitations; see ../en/invitations.ts). Typed by the English part.
import type { InvitationsMessages } from "../en/index.js";

export const invitations: InvitationsMessages = {
  "err.invitationGone":
    "Dieser Einladungslink funktioniert nicht mehr: Er wurde verwendet oder widerrufen, oder er ist abgelaufen. Bitten Sie die Person, die Sie eingeladen hat, um einen neuen.",
  "err.invitationEmail":
    "Diese Einladung gilt für eine andere E-Mail-Adresse: Geben Sie die Adresse ein, mit der Sie eingeladen wurden.",
  "signup.inviteTitle": "Registrierung nur mit Einladung",
  "signup.inviteText":
    "Neue Konten bei {service} werden mit einem Einladungslink erstellt. Bitten Sie einen Administrator darum.",
  "signup.invitedFor": "Diese Einladung gilt für {email}: Verwenden Sie diese Adresse.",
  "admin.invitations": "Einladungen: einmal verwendbare Registrierungslinks erstellen.",
  "adminInvitations.title": "Einladungen",
  "adminInvitations.lead":
    "Jeder Einladungslink erstellt ein Konto und gilt 7 Tage. Der Link wird nur einmal angezeigt, wenn er erstellt wird.",
  "adminInvitations.notInviteMode":
    "Die Registrierung ist gerade nicht auf Einladung gestellt: Die hier erstellten Links funktionieren nur, solange SIGNUP invite ist.",
  "adminInvitations.newTitle": "Neue Einladung",
  "adminInvitations.email": "E-Mail-Adresse (optional)",
  "adminInvitations.emailHint": "Wenn angegeben, muss das Konto mit dieser Adresse erstellt werden.",
  "adminInvitations.create": "Einladungslink erstellen",
  "adminInvitations.created":
    "Der Einladungslink steht unten. Er wird nur dieses eine Mal angezeigt: Kopieren Sie ihn jetzt und senden Sie ihn an die eingeladene Person.",
  "adminInvitations.link": "Einladungslink",
  "adminInvitations.pending": "Offene Einladungen",
  "adminInvitations.none": "Keine offenen Einladungen.",
  "adminInvitations.createdBy": "Erstellt von",
  "adminInvitations.createdAt": "Erstellt",
  "adminInvitations.expires": "Läuft ab",
  "adminInvitations.for": "Für",
  "adminInvitations.anyone": "Alle",
  "adminInvitations.revoke": "Widerrufen",
  "adminInvitations.revokeLabel": "Die am {time} erstellte Einladung widerrufen",
  "adminInvitations.revoked": "Die Einladung ist widerrufen: Ihr Link funktioniert nicht mehr.",
  "adminInvitations.gone": "Diese Einladung wurde bereits verwendet oder widerrufen, oder sie ist abgelaufen.",
  "adminInvitations.operator": "der Betreiber (Kommandozeile)",
  // SIGNUP_EMAIL_DOMAINS: sign-up at the listed domains, held back from apps until confirmed.
  "err.emailDomain": "Verwenden Sie eine E-Mail-Adresse bei einer dieser Domains: {domains}.",
  "err.confirmEmailFirst": "Der Benutzer muss seine E-Mail-Adresse bestätigen, bevor er sich bei Apps anmeldet.",
  "signup.emailDomainsHint":
    "Erforderlich: eine Adresse bei {domains}. Sie bestätigen sie über einen Link, den wir Ihnen senden; Apps stehen Ihnen offen, sobald sie bestätigt ist.",
  "confirmFirst.title": "Bestätigen Sie zuerst Ihre E-Mail-Adresse",
  "confirmFirst.body": "{service} öffnet Ihnen {app}, sobald Ihre E-Mail-Adresse bestätigt ist.",
  "confirmFirst.sentTo":
    "Ein Bestätigungslink wurde an {email} gesendet. Öffnen Sie ihn und kehren Sie dann zu dieser Seite zurück.",
  "confirmFirst.resend": "Neuen Bestätigungslink senden",
  "confirmFirst.noAddress":
    "Ihr Konto hat keine E-Mail-Adresse: Fügen Sie in Ihrem Konto eine hinzu und bestätigen Sie sie.",
  "confirmFirst.account": "E-Mail-Adresse verwalten",
  "dev.confirmEmailFirst":
    "Bestätigen Sie Ihre E-Mail-Adresse, um Apps zu registrieren: Öffnen Sie den Link, den wir Ihnen gesendet haben.",
};
