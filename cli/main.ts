import { ConfigError } from '../shared/config.ts';
import { AppError } from '../shared/errors.ts';
import { accounts, usage as accountsUsage } from './commands/accounts.ts';
import { audits, usage as auditsUsage } from './commands/audits.ts';
import { invites, usage as invitesUsage } from './commands/invites.ts';
import { keys, usage as keysUsage } from './commands/keys.ts';
import { logs, usage as logsUsage } from './commands/logs.ts';
import { scan, usage as scanUsage } from './commands/scan.ts';
import { migrateCommand, serve } from './commands/serve.ts';
import { sites, usage as sitesUsage } from './commands/sites.ts';
import { subscriptions, usage as subscriptionsUsage } from './commands/subscriptions.ts';
import { type CliIO, UsageError } from './context.ts';
import { processIO } from './progress.ts';

const HELP = `sightline: website scanning, audit and monitoring

  sightline start              embedded Postgres (unless DATABASE_URL) + migrations + API + worker
  sightline api                the API process (Procfile: web)
  sightline worker             a worker process (Procfile: worker)
  sightline migrate [--json]   apply migrations (Procfile: release)
  ${scanUsage}
  ${accountsUsage}
  ${auditsUsage.split('\n').join('\n  ')}
  ${keysUsage.split('\n').join('\n  ')}
  ${invitesUsage}
  ${subscriptionsUsage.split('\n').join('\n  ')}
  ${sitesUsage.split('\n').join('\n  ')}
  ${logsUsage}

Configuration comes from environment variables (see README).`;

export async function main(argv: string[], io: CliIO = processIO()): Promise<number> {
  const [cmd, ...rest] = argv;
  try {
    switch (cmd) {
      case 'start':
        return await serve(['api', 'worker'], rest, io);
      case 'api':
        return await serve(['api'], rest, io);
      case 'worker':
        return await serve(['worker'], rest, io);
      case 'migrate':
        return await migrateCommand(rest, io);
      case 'accounts':
        return await accounts(rest, io);
      case 'audits':
        return await audits(rest, io);
      case 'keys':
        return await keys(rest, io);
      case 'invites':
        return await invites(rest, io);
      case 'subscriptions':
        return await subscriptions(rest, io);
      case 'logs':
        return await logs(rest, io);
      case 'sites':
        return await sites(rest, io);
      case 'scan':
        return await scan(rest, io);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.out(HELP);
        return cmd === undefined ? 1 : 0;
      default:
        io.err(`unknown command: ${cmd}\n\n${HELP}`);
        return 2;
    }
  } catch (err) {
    if (err instanceof UsageError || err instanceof ConfigError) {
      io.err(err.message);
      return 2;
    }
    if (err instanceof AppError) {
      io.err(`${err.code}: ${err.detail}`);
      return 1;
    }
    if ((err as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      io.err((err as Error).message);
      return 2;
    }
    io.err(`error: ${(err as Error).stack ?? String(err)}`);
    return 1;
  }
}
