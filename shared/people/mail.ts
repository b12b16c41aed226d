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
  /**
   * Sends without making the caller wait: a page's answer then takes the same time whether or not
   * a mail goes out (so its timing does not tell who has an account), and an SMTP failure is
   * logged for the operator instead of failing the person's request.
   */
  dispatch(mail: Mail): void;
  /** False when SMTP_URL is not set: mail goes to the operator's log, and pages must say so. */
  readonly delivers: boolean;
}

const transports = new Map<string, Transporter>();

export function createMailer(config: Pick<Config, 'SMTP_URL' | 'MAIL_FROM'>, log: Logger): Mailer {
  const url = config.SMTP_URL;
  const detached = (send: (mail: Mail) => Promise<void>) => (mail: Mail) => {
    send(mail).catch((err: unknown) =>
      log.error({ err, mail: { to: mail.to, subject: mail.subject } }, 'email could not be sent'),
    );
  };
  if (!url) {
    const send = async (mail: Mail) => {
      log.info(
        { mail: { to: mail.to, subject: mail.subject, text: mail.logText ?? mail.text } },
        'email (SMTP_URL is not set, so it is written here instead of sent)',
      );
    };
    return { send, dispatch: detached(send), delivers: false };
  }
  let transport = transports.get(url);
  if (!transport) {
    transport = nodemailer.createTransport(url);
    transports.set(url, transport);
  }
  const t = transport;
  const send = async (mail: Mail) => {
    await t.sendMail({ from: config.MAIL_FROM, to: mail.to, subject: mail.subject, text: mail.text });
    log.info({ mail: { to: mail.to, subject: mail.subject } }, 'email sent');
  };
  return { send, dispatch: detached(send), delivers: true };
}
