import { parseArgs } from 'node:util';
import { AccountInputError, createAccount } from '../../shared/accounts/accounts.ts';
import type { ApiTier, Variant } from '../../shared/db/tables/accounts.ts';
import type { Plan } from '../../shared/db/tables/subscriptions.ts';
import { statusPageUrl } from '../../shared/monitoring/sites.ts';
import { type CliIO, loadCliConfig, openDatabase, UsageError } from '../context.ts';
import { accountsUsage as usage } from '../usage.ts';

export { usage };

export async function accounts(args: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'create') throw new UsageError(usage);
  const { values } = parseArgs({
    args: rest,
    options: {
      email: { type: 'string' },
      variant: { type: 'string' },
      tier: { type: 'string' },
      plan: { type: 'string' },
      'rate-limit': { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  if (!values.email || !/^[^@\s]+@[^@\s]+$/.test(values.email))
    throw new UsageError(`--email is required\n${usage}`);
  const variant = values.variant?.toUpperCase();
  if (variant !== 'A' && variant !== 'B') throw new UsageError(`--variant must be A or B\n${usage}`);
  if (!values.tier) throw new UsageError(`--tier is required\n${usage}`);
  if (values.plan && values.plan !== 'growth' && values.plan !== 'agency')
    throw new UsageError('--plan must be growth or agency');
  const rateLimit = values['rate-limit'] ? Number(values['rate-limit']) : null;
  if (rateLimit !== null && !(Number.isInteger(rateLimit) && rateLimit > 0))
    throw new UsageError('--rate-limit must be a positive integer');

  const config = loadCliConfig();
  const db = await openDatabase(config, io);
  try {
    const { account, key, statusToken } = await createAccount(db.handle.db, {
      email: values.email,
      variant: variant as Variant,
      tier: values.tier as ApiTier,
      plan: (values.plan as Plan | undefined) ?? null,
      rateLimit,
    });
    const result = {
      account: {
        id: Number(account.id),
        email: account.email,
        variant: account.variant,
        tier: account.tier,
        plan: values.plan ?? null,
      },
      key: { key: key.key, prefix: key.displayPrefix },
      // With a plan: the status page link, shown once like the key (only its hash is stored).
      ...(statusToken ? { statusToken, statusPageUrl: statusPageUrl(config, statusToken) } : {}),
    };
    if (values.json) io.out(JSON.stringify(result));
    else {
      io.out(
        `account ${result.account.id} ${account.email} (variant ${account.variant}, tier ${account.tier}${values.plan ? `, plan ${values.plan}` : ''})`,
      );
      io.out(`API key (shown once, store it now): ${key.key}`);
      if (result.statusPageUrl) io.out(`status page (shown once, share it now): ${result.statusPageUrl}`);
    }
    return 0;
  } catch (err) {
    if (err instanceof AccountInputError) throw new UsageError(err.message);
    if ((err as { code?: string }).code === '23505')
      throw new UsageError(`an account with email ${values.email} exists`);
    throw err;
  } finally {
    await db.close();
  }
}
