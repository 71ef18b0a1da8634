// English, part 3: sign-up policy: invitations (SIGNUP=invite; /admin/invitations and the invited
// sign-up) and SIGNUP_EMAIL_DOMAINS.
export const invitations = {
  "err.invitationGone":
    "This invitation link no longer works: it was used or revoked, or it has expired. Ask whoever invited you for a new one.",
  "err.invitationEmail": "This invitation is for another email address: enter the address you were invited with.",
  "signup.inviteTitle": "Sign-up is by invitation",
  "signup.inviteText": "New accounts on {service} are made with an invitation link. Ask an administrator for one.",
  "signup.invitedFor": "This invitation is for {email}: use that address.",
  "admin.invitations": "Invitations: make single-use sign-up links.",
  "adminInvitations.title": "Invitations",
  "adminInvitations.lead":
    "Each invitation link makes one account and works for 7 days. The link is shown only once, when it is made.",
  "adminInvitations.notInviteMode":
    "Sign-up is not by invitation now: the links made here work only while SIGNUP is invite.",
  "adminInvitations.newTitle": "New invitation",
  "adminInvitations.email": "Email address (optional)",
  "adminInvitations.emailHint": "When given, the account must be made with this address.",
  "adminInvitations.create": "Make an invitation link",
  "adminInvitations.created":
    "The invitation link is below. It is shown only this once: copy it now and send it to the person you invite.",
  "adminInvitations.link": "Invitation link",
  "adminInvitations.pending": "Pending invitations",
  "adminInvitations.none": "No pending invitations.",
  "adminInvitations.createdBy": "Made by",
  "adminInvitations.createdAt": "Made",
  "adminInvitations.expires": "Expires",
  "adminInvitations.for": "For",
  "adminInvitations.anyone": "Anyone",
  "adminInvitations.revoke": "Revoke",
  "adminInvitations.revokeLabel": "Revoke the invitation made {time}",
  "adminInvitations.revoked": "The invitation is revoked: its link no longer works.",
  "adminInvitations.gone": "That invitation was already used or revoked, or it has expired.",
  "adminInvitations.operator": "the operator (command line)",
  // SIGNUP_EMAIL_DOMAINS: sign-up at the listed domains, held back from apps until confirmed.
  "err.emailDomain": "Use an email address at one of these domains: {domains}.",
  "err.confirmEmailFirst": "The user must confirm their email address before signing in to apps.",
  "signup.emailDomainsHint":
    "Required: an address at {domains}. You confirm it with a link we mail to you; apps open to you once it is confirmed.",
  "confirmFirst.title": "Confirm your email first",
  "confirmFirst.body": "{service} opens {app} to you once your email address is confirmed.",
  "confirmFirst.sentTo": "A confirmation link was sent to {email}. Open it, then come back to this page.",
  "confirmFirst.resend": "Send a new confirmation link",
  "confirmFirst.noAddress": "Your account has no email address: add one on your account, then confirm it.",
  "confirmFirst.account": "Manage your email address",
  "dev.confirmEmailFirst": "Confirm your email address to register apps: open the link we mailed to you.",
} as const;
