import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { freePort } from '../../shared/db/embedded.ts';

export const BIN = path.resolve('bin/sightline.js');

export interface Proc {
  child: ChildProcess;
  output: () => string;
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
}

/** Runs `sightline <args>` as a real child process with extra environment. */
export function runSightline(args: string[], env: Record<string, string>): Proc {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (b) => (out += b));
  child.stderr!.on('data', (b) => (out += b));
  return {
    child,
    output: () => out,
    stop: (signal = 'SIGTERM') =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill(signal);
      }),
  };
}

/** Starts `sightline api` on a free port and waits until it answers. */
export async function startApiProcess(
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<Proc & { url: string }> {
  const port = await freePort();
  const proc = runSightline(['api', '--no-migrate'], {
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    LOG_LEVEL: 'info',
    ...env,
  });
  const url = `http://127.0.0.1:${port}`;
  const until = Date.now() + 30_000;
  for (;;) {
    if (proc.child.exitCode !== null) throw new Error(`api exited: ${proc.output()}`);
    try {
      const res = await fetch(`${url}/api/v1/status`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > until) throw new Error(`api did not start: ${proc.output()}`);
    await new Promise((r) => setTimeout(r, 150));
  }
  return { ...proc, url };
}
