import { parseArgs } from 'node:util';
import { AccountInputError } from '../../shared/accounts/accounts.ts';
import type { ApiTier } from '../../shared/db/tables/accounts.ts';
import { createLogger } from '../../shared/logger.ts';
import { createMailer } from '../../shared/people/mail.ts';
import { createInvite, mailInvite } from '../../shared/people/people.ts';
import { type CliIO, loadCliConfig, openDatabase, UsageError } from '../context.ts';
import { invitesUsage as usage } from '../usage.ts';

export { usage };

export async function invites(args: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: {
      email: { type: 'string' },
      tier: { type: 'string' },
      json: { type: 'boolean', default: false },
      mail: { type: 'boolean', default: false },
    },
  });
  if (sub !== 'create') throw new UsageError(usage);
  if (!values.email || !values.tier) throw new UsageError(`--email and --tier are required\n${usage}`);
  const cfg = loadCliConfig();
  const db = await openDatabase(cfg, io);
  try {
    const invite = await createInvite(
      { db: db.handle.db, config: cfg },
      { email: values.email, tier: values.tier as ApiTier, createdBy: 'cli' },
    );
    // --mail: the link also goes to the address (SMTP_URL; without it, to this command's log).
    const mailer = values.mail ? createMailer(cfg, createLogger('invites', undefined, cfg.LOG_LEVEL)) : null;
    if (mailer) await mailInvite(mailer, { email: values.email, tier: values.tier as ApiTier, ...invite });
    if (values.json) {
      io.out(
        JSON.stringify({
          email: values.email.trim().toLowerCase(),
          tier: values.tier,
          variant: invite.variant,
          link: invite.link,
          expires_at: invite.expiresAt.toISOString(),
          mailed: mailer?.delivers ?? false,
        }),
      );
    } else {
      io.out(
        `Invitation for ${values.email} (variant ${invite.variant}, ${values.tier} tier), valid once until ${invite.expiresAt.toISOString()}:`,
      );
      io.out(invite.link);
      if (mailer)
        io.out(
          mailer.delivers
            ? `Sent to ${values.email}.`
            : 'SMTP_URL is not set: the email was written to the log.',
        );
    }
    return 0;
  } catch (err) {
    if (err instanceof AccountInputError) throw new UsageError(err.message);
    throw err;
  } finally {
    await db.close();
  }
}
