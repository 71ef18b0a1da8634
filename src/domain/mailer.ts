// Sending mail over SMTP (nodemailer): SMTP_URL (smtp:// or smtps://, credentials in the URL) and
// MAIL_FROM. Without SMTP_URL there is no mailer and the email features say they are not set up.
import nodemailer from "nodemailer";

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
  close(): void;
}

/** Text made safe for a mail's HTML body. */
export const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

export function smtpMailer(smtpUrl: string, from: string): Mailer {
  // One pooled transport per node; nodemailer reads host, port, TLS and credentials from the URL.
  const transport = nodemailer.createTransport(smtpUrl, { from });
  return {
    async send(mail) {
      await transport.sendMail({ from, ...mail });
    },
    close() {
      transport.close();
    },
  };
}
