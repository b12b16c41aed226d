import os from 'node:os';
import { parseArgs } from 'node:util';
import { agentTrafficSection } from './agent-traffic.ts';
import { cliSection } from './cli.ts';
import { type BenchRow, type Section, startContext } from './context.ts';
import { crawlSection } from './crawl.ts';
import { fanoutSection } from './fanout.ts';
import { fullScanSection } from './fullscan.ts';
import { httpSection } from './http.ts';
import { jobsSection } from './jobs.ts';
import { scansSection } from './scans.ts';
import { soakSection } from './soak.ts';

// `npm run bench [-- [--seconds N] [--connections N] [section ...]]`: runs the named sections (all
// but ON_DEMAND when none is named) against one embedded Postgres (or DATABASE_URL), one API and one worker,
// and prints a markdown table. A new section is a file bench/<name>.ts exporting a Section,
// registered here.
const SECTIONS: Record<string, Section> = {
  http: httpSection,
  jobs: jobsSection,
  fanout: fanoutSection,
  scans: scansSection,
  fullscan: fullScanSection,
  crawl: crawlSection,
  soak: soakSection,
  agents: agentTrafficSection,
  cli: cliSection,
};
// Run only when named: too long for the default set.
const ON_DEMAND = new Set(['soak']);

function table(rows: { section: string; row: BenchRow }[]): string {
  const lines = ['| section | measurement | result | notes |', '|---|---|---|---|'];
  for (const { section, row } of rows)
    lines.push(`| ${section} | ${row.measurement} | ${row.result} | ${row.notes ?? ''} |`);
  return lines.join('\n');
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      seconds: { type: 'string', default: '8' },
      connections: { type: 'string', default: '10' },
    },
  });
  const seconds = Number(values.seconds);
  const connections = Number(values.connections);
  if (!(seconds >= 1 && seconds <= 120) || !(Number.isInteger(connections) && connections >= 1)) {
    console.error('--seconds must be 1..120 and --connections a positive integer');
    return 2;
  }
  const names = positionals.length ? positionals : Object.keys(SECTIONS).filter((n) => !ON_DEMAND.has(n));
  const unknown = names.filter((n) => !SECTIONS[n]);
  if (unknown.length) {
    console.error(`unknown section(s): ${unknown.join(', ')}; known: ${Object.keys(SECTIONS).join(', ')}`);
    return 2;
  }

  const started = Date.now();
  const { ctx, close } = await startContext({ seconds, connections });
  const interrupted = () => {
    void close().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  const rows: { section: string; row: BenchRow }[] = [];
  try {
    for (const name of names) for (const row of await SECTIONS[name]!(ctx)) rows.push({ section: name, row });
  } finally {
    process.off('SIGINT', interrupted);
    await close();
  }
  const cpus = os.cpus();
  console.log(
    `Machine: ${cpus.length} cores (${cpus[0]?.model.trim() ?? 'unknown CPU'}), ` +
      `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, ${os.platform()} ${os.release()}; Node ${process.version}; ` +
      `${ctx.postgres}. Load: autocannon, ${connections} connections, ${seconds} s runs. ` +
      `Whole run ${((Date.now() - started) / 1000).toFixed(0)} s. ${cpuReference()}\n`,
  );
  console.log(table(rows));
  return 0;
}

/**
 * A fixed CPU workload, so that runs on different machines (or on one virtual machine at different
 * hours: the host's load has moved this one's speed by 2-3x between sessions) can be told apart
 * when absolute goals (ms per page, ms per call) are read: 10^8 steps of a dependent integer
 * multiply-add and 10^6 small objects allocated and sorted, best of 3.
 */
function cpuReference(): string {
  let loop = Number.POSITIVE_INFINITY;
  let alloc = Number.POSITIVE_INFINITY;
  let x = 0;
  for (let round = 0; round < 3; round++) {
    let t0 = performance.now();
    for (let i = 0; i < 1e8; i++) x = (x * 31 + i) | 0;
    loop = Math.min(loop, performance.now() - t0);
    t0 = performance.now();
    const objects = Array.from({ length: 1e6 }, (_, i) => ({ i, s: `x${i}` }));
    objects.sort((a, b) => b.i - a.i);
    alloc = Math.min(alloc, performance.now() - t0);
  }
  referenceSink = x;
  return `CPU reference: integer loop ${loop.toFixed(0)} ms, allocate and sort ${alloc.toFixed(0)} ms.`;
}
/** The reference loop's result, kept so that the loop is not optimised away. */
export let referenceSink = 0;

process.exitCode = await main();
