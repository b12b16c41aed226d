import { parseArgs } from 'node:util';
import { AccountInputError } from '../../shared/accounts/accounts.ts';
import type { ApiTier } from '../../shared/db/tables/accounts.ts';
import { createInvite } from '../../shared/people/people.ts';
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
    if (values.json) {
      io.out(
        JSON.stringify({
          email: values.email.trim().toLowerCase(),
          tier: values.tier,
          variant: invite.variant,
          link: invite.link,
          expires_at: invite.expiresAt.toISOString(),
        }),
      );
    } else {
      io.out(
        `Invitation for ${values.email} (variant ${invite.variant}, ${values.tier} tier), valid once until ${invite.expiresAt.toISOString()}:`,
      );
      io.out(invite.link);
    }
    return 0;
  } catch (err) {
    if (err instanceof AccountInputError) throw new UsageError(err.message);
    throw err;
  } finally {
    await db.close();
  }
}
