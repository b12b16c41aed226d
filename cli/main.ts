import { AppError } from '../shared/errors.ts';
import type { CliIO } from './context.ts';
import { processIO } from './progress.ts';
import {
  accountsUsage,
  agentsUsage,
  auditsUsage,
  invitesUsage,
  keysUsage,
  logsUsage,
  scanUsage,
  sitesUsage,
  subscriptionsUsage,
  UsageError,
} from './usage.ts';

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
  ${agentsUsage.split('\n').join('\n  ')}

Configuration comes from environment variables (see README).`;

export async function main(argv: string[], io: CliIO = processIO()): Promise<number> {
  const [cmd, ...rest] = argv;
  try {
    // Each command's module (and so its dependencies: the API, the worker, Playwright...) is
    // loaded only when that command runs, so start-up stays close to bare node's.
    switch (cmd) {
      case 'start':
        return await (await import('./commands/serve.ts')).serve(['api', 'worker'], rest, io);
      case 'api':
        return await (await import('./commands/serve.ts')).serve(['api'], rest, io);
      case 'worker':
        return await (await import('./commands/serve.ts')).serve(['worker'], rest, io);
      case 'migrate':
        return await (await import('./commands/serve.ts')).migrateCommand(rest, io);
      case 'accounts':
        return await (await import('./commands/accounts.ts')).accounts(rest, io);
      case 'audits':
        return await (await import('./commands/audits.ts')).audits(rest, io);
      case 'keys':
        return await (await import('./commands/keys.ts')).keys(rest, io);
      case 'invites':
        return await (await import('./commands/invites.ts')).invites(rest, io);
      case 'subscriptions':
        return await (await import('./commands/subscriptions.ts')).subscriptions(rest, io);
      case 'agents':
        return await (await import('./commands/agents.ts')).agents(rest, io);
      case 'logs':
        return await (await import('./commands/logs.ts')).logs(rest, io);
      case 'sites':
        return await (await import('./commands/sites.ts')).sites(rest, io);
      case 'scan':
        return await (await import('./commands/scan.ts')).scan(rest, io);
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
    // The configuration module (zod and its schema) is loaded only on this, the error path.
    const { ConfigError } = await import('../shared/config.ts');
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
