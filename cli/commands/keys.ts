import { parseArgs } from 'node:util';
import { AccountInputError, issueKey, revokeKeys } from '../../shared/accounts/accounts.ts';
import { type CliIO, loadCliConfig, openDatabase, UsageError } from '../context.ts';
import { keysUsage as usage } from '../usage.ts';

export { usage };

export async function keys(args: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      account: { type: 'string' },
      'rate-limit': { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  if (sub === 'create') {
    if (!values.account || !/^\d+$/.test(values.account))
      throw new UsageError(`--account ID is required\n${usage}`);
    const rateLimit = values['rate-limit'] ? Number(values['rate-limit']) : null;
    if (rateLimit !== null && !(Number.isInteger(rateLimit) && rateLimit > 0))
      throw new UsageError('--rate-limit must be a positive integer');
    const db = await openDatabase(loadCliConfig(), io);
    try {
      const key = await issueKey(db.handle.db, values.account, rateLimit);
      if (values.json)
        io.out(
          JSON.stringify({
            id: Number(key.id),
            key: key.key,
            prefix: key.displayPrefix,
            account: Number(values.account),
          }),
        );
      else io.out(`API key (shown once, store it now): ${key.key}`);
      return 0;
    } catch (err) {
      if (err instanceof AccountInputError) throw new UsageError(err.message);
      throw err;
    } finally {
      await db.close();
    }
  }
  if (sub === 'revoke') {
    const prefix = positionals[0];
    if (!prefix) throw new UsageError(`a key prefix is required\n${usage}`);
    const db = await openDatabase(loadCliConfig(), io);
    try {
      const revoked = await revokeKeys(db.handle.db, prefix);
      if (values.json) io.out(JSON.stringify({ prefix, revoked }));
      else
        io.out(
          revoked ? `revoked ${revoked} key(s) with prefix ${prefix}` : `no live key with prefix ${prefix}`,
        );
      return revoked ? 0 : 1;
    } finally {
      await db.close();
    }
  }
  throw new UsageError(usage);
}
