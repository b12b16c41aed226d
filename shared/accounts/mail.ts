import nodemailer, { type Transporter } from 'nodemailer';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';

// Outgoing email: SMTP through nodemailer when SMTP_URL is set; otherwise every message is written
// to the log (level info), so a local installation never leaves anyone stuck without their link.
// `logText` replaces the body in that log line when the body holds something the log must not
// (an API key): the person then finds it in the console, where it was shown once.

export interface Mail {
  to: string;
  subject: string;
  text: string;
  logText?: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
}

const transports = new Map<string, Transporter>();

export function createMailer(config: Pick<Config, 'SMTP_URL' | 'MAIL_FROM'>, log: Logger): Mailer {
  const url = config.SMTP_URL;
  if (!url) {
    return {
      async send(mail) {
        log.info(
          { mail: { to: mail.to, subject: mail.subject, text: mail.logText ?? mail.text } },
          'email (SMTP_URL is not set, so it is written here instead of sent)',
        );
      },
    };
  }
  let transport = transports.get(url);
  if (!transport) {
    transport = nodemailer.createTransport(url);
    transports.set(url, transport);
  }
  const t = transport;
  return {
    async send(mail) {
      await t.sendMail({ from: config.MAIL_FROM, to: mail.to, subject: mail.subject, text: mail.text });
      log.info({ mail: { to: mail.to, subject: mail.subject } }, 'email sent');
    },
  };
}
