import { parseArgs } from 'node:util';
import { AccountInputError, createAccount } from '../../shared/accounts/accounts.ts';
import { type AccountDetails, accountDetails, listAccounts } from '../../shared/accounts/directory.ts';
import type { ApiTier, Variant } from '../../shared/db/tables/accounts.ts';
import type { Plan } from '../../shared/db/tables/subscriptions.ts';
import { statusPageUrl } from '../../shared/monitoring/sites.ts';
import { type CliIO, loadCliConfig, openDatabase, UsageError } from '../context.ts';
import { accountsUsage as usage } from '../usage.ts';

export { usage };

// Operator commands for accounts: create one (with its first key), find one by email, look one up.
export async function accounts(args: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'create') return createCommand(rest, io);
  if (sub === 'list') return listCommand(rest, io);
  if (sub === 'show') return showCommand(rest, io);
  throw new UsageError(usage);
}

async function listCommand(args: string[], io: CliIO): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      email: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const limit = values.limit === undefined ? 100 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
    throw new UsageError('--limit must be an integer from 1 to 10000');
  const db = await openDatabase(loadCliConfig(), io);
  try {
    const rows = await listAccounts(db.handle.db, { email: values.email, limit });
    if (values.json) io.out(JSON.stringify(rows));
    else if (rows.length === 0) io.out('no accounts match');
    else
      for (const a of rows)
        io.out(`${a.id}\t${a.email}\t${a.variant}\t${a.tier}\t${a.plan ?? '-'}\t${a.createdAt.slice(0, 10)}`);
    return 0;
  } finally {
    await db.close();
  }
}

function printDetails(io: CliIO, a: AccountDetails): void {
  io.out(`account ${a.id} ${a.email}`);
  io.out(`  variant ${a.variant}, tier ${a.tier}, plan ${a.plan ?? 'none'}, created ${a.createdAt}`);
  io.out(`  keys (${a.keys.length}):`);
  for (const k of a.keys)
    io.out(
      `    ${k.prefix}…  created ${k.createdAt.slice(0, 10)}, last used ${k.lastUsedAt?.slice(0, 10) ?? 'never'}${k.revokedAt ? `, revoked ${k.revokedAt.slice(0, 10)}` : ''}`,
    );
  if (a.variant === 'A') {
    io.out(`  monitored sites (${a.monitoredSites.length}):`);
    for (const s of a.monitoredSites) io.out(`    ${s.id} ${s.url} (${s.siteType}, ${s.status}) ${s.label}`);
  } else {
    io.out(`  agent sites (${a.agentSites.length}):`);
    for (const s of a.agentSites) io.out(`    ${s.id} ${s.url} ${s.label}`);
  }
}

async function showCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false } },
  });
  const [id] = positionals;
  if (!id || !/^\d{1,18}$/.test(id)) throw new UsageError(`an account ID is required\n${usage}`);
  const db = await openDatabase(loadCliConfig(), io);
  try {
    const details = await accountDetails(db.handle.db, id);
    if (!details) {
      io.err(`no account ${id}`);
      return 1;
    }
    if (values.json) io.out(JSON.stringify(details));
    else printDetails(io, details);
    return 0;
  } finally {
    await db.close();
  }
}

async function createCommand(args: string[], io: CliIO): Promise<number> {
  const { values } = parseArgs({
    args,
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
