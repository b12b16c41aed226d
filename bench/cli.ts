import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createAccount } from '../shared/accounts/accounts.ts';
import type { BenchContext, BenchRow } from './context.ts';
import { limit, summarise } from './stats.ts';

// `sightline` start-up: the wall time of a process that does next to nothing (`--help`) or one
// small database read (`subscriptions show`), against bare `node -e ''`. The difference is what
// starting Sightline costs. Compiled output in dist/ (scripts/build.mjs) is what the command
// runs; SIGHTLINE_FROM_SOURCE=1 shows the tsx path it falls back to when dist/ is stale.

const RUNS = 7;
const BIN = path.resolve('bin/sightline.js');

function wall(args: string[], env: Record<string, string> = {}): number[] {
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, args, { env: { ...process.env, ...env }, encoding: 'utf8' });
    samples.push(performance.now() - t0);
    if (r.status !== 0 && !args.includes('--help'))
      throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  }
  return samples;
}

const s = (v: number) => `${(v / 1000).toFixed(2)}`;

export async function cliSection(ctx: BenchContext): Promise<BenchRow[]> {
  const { account } = await createAccount(ctx.db, {
    email: `bench-cli-${Date.now()}@bench.invalid`,
    variant: 'A',
    tier: 'free',
    plan: 'growth',
  });
  ctx.progress(`cli: ${RUNS} runs each of node -e '', sightline --help, sightline subscriptions show`);
  // The database the service uses (`show` checks migrations are applied, as every database command does).
  const env = { DATABASE_URL: ctx.databaseUrl, LOG_LEVEL: 'silent' };
  const floor = summarise(wall(['-e', ''])).p50;
  const help = summarise(wall([BIN, '--help'], env)).p50;
  const show = summarise(wall([BIN, 'subscriptions', 'show', '--account', account.id, '--json'], env)).p50;
  const tsx = summarise(wall([BIN, '--help'], { ...env, SIGHTLINE_FROM_SOURCE: '1' })).p50;
  return [
    {
      measurement: '`sightline --help` start-up (wall minus `node -e` wall, median of 7)',
      result: limit(help - floor, 500, 's', s),
      notes: `${s(help)} s wall vs ${s(floor)} s for \`node -e ''\`; through tsx (dist/ stale) ${s(tsx)} s`,
    },
    {
      measurement: '`sightline subscriptions show` (one small database read) start-up',
      result: limit(show - floor, 500, 's', s),
      notes: `${s(show)} s wall, including connecting to Postgres and its queries`,
    },
  ];
}
