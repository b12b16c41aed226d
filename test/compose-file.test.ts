import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { loadConfig } from '../shared/config.ts';
import { registerQueueDepth, registry } from '../shared/metrics.ts';
import { findChromium } from '../worker/browser/chromium.ts';

// There is no Docker engine in CI, so the deployment files are checked as data: the compose
// structure, that its commands are the Procfile's, that the image runs real files, and that
// Prometheus and the dashboard point at the ports and metric names the code really has.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
const exists = (file: string) => fs.existsSync(path.join(root, file));

// biome-ignore lint/suspicious/noExplicitAny: parsed YAML/JSON documents are walked freely
type Doc = any;

function procfile(): Record<string, string> {
  const entries = read('Procfile')
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith('#'))
    .map((l) => {
      const m = /^([a-z]+):\s*(.+)$/.exec(l);
      assert.ok(m, `Procfile line is not "name: command": ${l}`);
      return [m[1]!, m[2]!.trim()] as const;
    });
  return Object.fromEntries(entries);
}

/** Compose's `${VAR:-default}` / `${VAR-default}` with nothing set in the environment. */
function interpolate(value: unknown): string {
  return String(value).replace(
    /\$\{(\w+)(?::?-([^}]*))?\}/g,
    (_m, _name, def: string | undefined) => def ?? '',
  );
}

const compose: Doc = parse(read('docker-compose.yml'), { merge: true });
const services: Doc = compose.services;
const envOf = (name: string): Record<string, string> =>
  Object.fromEntries(Object.entries(services[name].environment ?? {}).map(([k, v]) => [k, interpolate(v)]));
const commandOf = (name: string) => (services[name].command as string[]).join(' ');
const APP_SERVICES = ['migrate', 'api', 'worker'];

/** Dockerfile instructions with continuation lines joined and comments dropped. */
function dockerfile(): { op: string; args: string }[] {
  const lines = read('Dockerfile')
    .split('\n')
    .filter((l) => !l.trimStart().startsWith('#'));
  return lines
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => {
      const m = /^\s*([A-Z]+)\s+(.*)$/.exec(l);
      assert.ok(m, `not a Dockerfile instruction: ${l}`);
      return { op: m[1]!, args: m[2]!.replace(/\s+/g, ' ').trim() };
    });
}

function dockerEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const i of dockerfile().filter((x) => x.op === 'ENV'))
    for (const pair of i.args.split(' ')) {
      const [k, v] = pair.split('=');
      assert.ok(k && v !== undefined, `ENV entries are KEY=value: ${pair}`);
      env[k] = v;
    }
  return env;
}

/** .dockerignore as Docker reads it: patterns from the context root, `*` within one path segment. */
function ignoredByDocker(file: string): boolean {
  const patterns = read('.dockerignore')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  assert.ok(!patterns.some((p) => p.startsWith('!')), 'this matcher does not handle ! exceptions');
  const regexes = patterns.map(
    (p) =>
      new RegExp(
        `^${p
          .replace(/^\//, '')
          .replace(/[.+^${}()|[\]\\]/g, '\\$&')
          .replace(/\*\*/g, '\0')
          .replace(/\*/g, '[^/]*')
          .replace(/\?/g, '[^/]')
          .replace(/\0/g, '.*')}$`,
      ),
  );
  const parts = file.split('/');
  return parts.some((_, i) => regexes.some((r) => r.test(parts.slice(0, i + 1).join('/'))));
}

describe('Procfile', () => {
  it('declares web, worker and release as sightline CLI commands that exist', () => {
    const p = procfile();
    assert.deepEqual(Object.keys(p).sort(), ['release', 'web', 'worker']);
    const cli = read('cli/main.ts');
    for (const [name, command] of Object.entries(p)) {
      const m = /^node (\S+) (\S+)$/.exec(command);
      assert.ok(m, `${name}: ${command}`);
      assert.ok(exists(m[1]!), `${m[1]} exists`);
      assert.match(cli, new RegExp(`case '${m[2]}':`), `the CLI dispatches "${m[2]}"`);
    }
    assert.equal(p.web, 'node bin/sightline.js api');
    assert.equal(p.worker, 'node bin/sightline.js worker');
    assert.equal(p.release, 'node bin/sightline.js migrate');
  });
});

describe('docker-compose.yml', () => {
  it('has postgres, migrate, api and worker, with the monitoring stack behind a profile', () => {
    for (const name of ['postgres', ...APP_SERVICES]) {
      assert.ok(services[name], `service ${name}`);
      assert.equal(services[name].profiles, undefined, `${name} starts with a plain "up"`);
    }
    for (const name of ['prometheus', 'grafana']) assert.deepEqual(services[name]?.profiles, ['monitoring']);
  });

  it('runs postgres 17 with a pg_isready healthcheck and a named data volume', () => {
    const pg = services.postgres;
    assert.equal(pg.image, 'postgres:17');
    assert.equal(pg.healthcheck.test[0], 'CMD-SHELL');
    assert.match(pg.healthcheck.test[1], /^pg_isready\b/);
    const volume = (pg.volumes as string[]).find((v) => v.endsWith(':/var/lib/postgresql/data'));
    assert.ok(volume, 'data directory on a volume');
    assert.ok(volume.split(':')[0]! in compose.volumes, 'declared as a named volume');
  });

  it('runs the Procfile commands and orders start-up: healthy postgres, then migrate, then the rest', () => {
    const p = procfile();
    assert.equal(commandOf('migrate'), p.release);
    assert.equal(commandOf('api'), p.web);
    assert.equal(commandOf('worker'), p.worker);
    assert.deepEqual(services.migrate.depends_on, { postgres: { condition: 'service_healthy' } });
    assert.equal(services.migrate.restart, 'no', 'a finished migration is not restarted');
    for (const name of ['api', 'worker'])
      assert.deepEqual(services[name].depends_on, {
        migrate: { condition: 'service_completed_successfully' },
      });
  });

  it('gives every app process the same image and a DATABASE_URL for the postgres service', () => {
    const pgEnv = envOf('postgres');
    for (const name of APP_SERVICES) {
      const svc = services[name];
      assert.equal(svc.image, services.api.image);
      assert.equal(svc.build, '.');
      const url = new URL(envOf(name).DATABASE_URL!);
      assert.equal(url.hostname, 'postgres');
      assert.equal(url.username, pgEnv.POSTGRES_USER);
      assert.equal(url.password, pgEnv.POSTGRES_PASSWORD);
      assert.equal(url.pathname, `/${pgEnv.POSTGRES_DB}`);
    }
  });

  it('sets only configuration variables the app knows, with values it accepts', () => {
    const image = dockerEnv();
    for (const name of APP_SERVICES) {
      const env = { ...image, ...envOf(name) };
      const cfg = loadConfig(env) as unknown as Record<string, unknown>;
      const unknown = Object.keys(envOf(name)).filter((k) => !(k in cfg));
      assert.deepEqual(unknown, [], `${name} sets variables that shared/config.ts does not read`);
      assert.equal(cfg.HOST, '0.0.0.0', 'listens on all interfaces inside the container');
    }
  });

  it('publishes the API port and keeps workers scalable (no fixed name, no host ports)', () => {
    const port = loadConfig({ ...dockerEnv(), ...envOf('api') }).PORT;
    assert.deepEqual(services.api.ports, [`${port}:${port}`]);
    assert.match(
      services.api.healthcheck.test.join(' '),
      new RegExp(`127\\.0\\.0\\.1:${port}/api/v1/status`),
    );
    const worker = services.worker;
    assert.equal(worker.container_name, undefined);
    assert.equal(worker.ports, undefined);
    const metricsPort = loadConfig({ ...dockerEnv(), ...envOf('worker') }).WORKER_METRICS_PORT;
    assert.match(worker.healthcheck.test.join(' '), new RegExp(`127\\.0\\.0\\.1:${metricsPort}/metrics`));
    // Longer than the worker's own shutdown bound, so running jobs can finish before SIGKILL.
    const graceSeconds = Number(/^(\d+)s$/.exec(worker.stop_grace_period)?.[1]);
    const shutdownMs = loadConfig({ ...dockerEnv(), ...envOf('worker') }).WORKER_SHUTDOWN_TIMEOUT_MS;
    assert.ok(graceSeconds * 1000 > shutdownMs, `${graceSeconds}s > ${shutdownMs}ms`);
  });

  it('mounts only files that exist in the repository', () => {
    for (const [name, svc] of Object.entries(services as Record<string, Doc>))
      for (const v of (svc.volumes ?? []) as string[]) {
        const source = v.split(':')[0]!;
        if (source.startsWith('./')) assert.ok(exists(source), `${name} mounts ${source}`);
        else assert.ok(source in compose.volumes, `${name} uses declared volume ${source}`);
      }
  });
});

describe('Dockerfile', () => {
  const steps = dockerfile();
  const runs = steps.filter((s) => s.op === 'RUN').map((s) => s.args);

  it('builds on node 20 bookworm-slim with Debian chromium, fonts and tini', () => {
    assert.equal(steps[0]?.op, 'FROM');
    assert.equal(steps[0]?.args, 'node:20-bookworm-slim');
    const apt = runs.find((r) => r.includes('apt-get install'));
    assert.ok(apt);
    const pkgs = apt.split(' ');
    for (const p of ['chromium', 'tini']) assert.ok(pkgs.includes(p), `installs ${p}`);
    assert.ok(
      pkgs.some((p) => p.startsWith('fonts-')),
      'installs fonts',
    );
  });

  it("points CHROMIUM_PATH at Debian's chromium binary, the one the browser finder resolves", (t) => {
    const configured = dockerEnv().CHROMIUM_PATH;
    assert.ok(configured, 'CHROMIUM_PATH is set');
    // The image installs the same Debian package as this machine: where there is one, the finder
    // resolves it, and that is the file CHROMIUM_PATH must name (not the /usr/bin wrapper script).
    const found = findChromium({});
    if (found?.source !== 'system' || !fs.existsSync('/usr/lib/chromium/chromium'))
      return t.skip("Debian's chromium is not installed here");
    assert.equal(configured, found.path);
    const head = Buffer.alloc(2);
    const fd = fs.openSync(configured, 'r');
    fs.readSync(fd, head, 0, 2, 0);
    fs.closeSync(fd);
    assert.notEqual(head.toString('latin1'), '#!', `${configured} is a script`);
  });

  it('installs production dependencies under an npm that enforces package.json allowScripts', () => {
    const npm = runs.find((r) => /npm install -g npm@\d+/.test(r));
    assert.ok(npm, 'upgrades npm');
    assert.ok(Number(/npm@(\d+)/.exec(npm)![1]) >= 11, 'npm 11 or newer reads allowScripts');
    const ci = runs.find((r) => /npm (ci|install) --omit=dev/.test(r));
    assert.ok(ci);
    assert.match(ci, /--strict-allow-scripts/);
    assert.match(ci, /--omit=dev/);
    const pkg = JSON.parse(read('package.json'));
    assert.ok(
      pkg.allowScripts && Object.keys(pkg.allowScripts).length > 0,
      'package.json lists allowScripts',
    );
    // What the app needs at run time must not be a devDependency, or --omit=dev drops it.
    assert.ok(pkg.dependencies.tsx, 'tsx (which runs the TypeScript sources) is a runtime dependency');
  });

  it('runs as a non-root user and starts the API from files the build context contains', () => {
    const user = steps.filter((s) => s.op === 'USER').at(-1)?.args;
    assert.ok(user && user !== 'root' && user !== '0', `USER ${user}`);
    const cmd = JSON.parse(steps.find((s) => s.op === 'CMD')!.args) as string[];
    assert.equal(cmd.join(' '), procfile().web);
    const entrypoint = JSON.parse(steps.find((s) => s.op === 'ENTRYPOINT')!.args) as string[];
    assert.deepEqual(entrypoint, ['/usr/bin/tini', '--']);
    for (const copy of steps.filter((s) => s.op === 'COPY')) {
      const sources = copy.args
        .split(' ')
        .filter((a) => !a.startsWith('--'))
        .slice(0, -1);
      for (const s of sources) if (s !== '.') assert.ok(exists(s) && !ignoredByDocker(s), `COPY ${s}`);
    }
    const needed = [
      cmd[1]!,
      'cli/main.ts',
      'api/server.ts',
      'worker/runner.ts',
      'worker/crontab',
      'shared/config.ts',
      'sql/001_foundation.sql',
      'package.json',
      'package-lock.json',
      // Served by the API at /docs/guides/<name> and /docs/img/<name>.
      'docs/monitoring.md',
      'docs/img/console-keys.png',
    ];
    for (const f of needed) {
      assert.ok(exists(f), `${f} exists`);
      assert.ok(!ignoredByDocker(f), `${f} reaches the image`);
    }
    for (const f of ['node_modules/pg/package.json', '.git/HEAD', '.data/pg'])
      assert.ok(ignoredByDocker(f), `${f} stays out of the build context`);
  });
});

describe('ops/prometheus.yml', () => {
  const prom: Doc = parse(read('ops/prometheus.yml'));
  const job = (name: string) => prom.scrape_configs.find((j: Doc) => j.job_name === name);

  it('scrapes every api and worker replica on the ports the processes listen on', () => {
    const cfg = loadConfig({ ...dockerEnv(), ...envOf('worker') });
    const api = job('sightline-api');
    const worker = job('sightline-worker');
    assert.equal(api.metrics_path, '/metrics');
    assert.equal(worker.metrics_path, '/metrics');
    assert.deepEqual(api.dns_sd_configs, [
      { names: ['api'], type: 'A', port: cfg.PORT, refresh_interval: '30s' },
    ]);
    assert.deepEqual(worker.dns_sd_configs, [
      { names: ['worker'], type: 'A', port: cfg.WORKER_METRICS_PORT, refresh_interval: '30s' },
    ]);
    const mounted = (services.prometheus.volumes as string[]).some((v) =>
      v.startsWith('./ops/prometheus.yml:/etc/prometheus/prometheus.yml'),
    );
    assert.ok(mounted, 'compose hands this file to prometheus');
  });
});

describe('ops/grafana-dashboard.json', () => {
  const dash: Doc = JSON.parse(read('ops/grafana-dashboard.json'));
  const panels: Doc[] = dash.panels.filter((p: Doc) => p.type !== 'row');
  const exprs: string[] = panels.flatMap((p) => p.targets.map((t: Doc) => t.expr as string));
  const used = new Set(exprs.flatMap((e) => e.match(/\bsightline_[a-z0-9_]+/g) ?? []));

  // Named in the plan for the scan and browser work; listed until their code declares them.
  const PLANNED = [
    'sightline_scan_duration_seconds',
    'sightline_gatherer_failures_total',
    'sightline_browser_contexts_in_use',
    'sightline_lighthouse_runs_total',
  ];

  async function knownMetrics(): Promise<Set<string>> {
    registerQueueDepth(async () => []);
    const names = new Set<string>();
    const addFamily = (n: string) => {
      for (const suffix of ['', '_bucket', '_sum', '_count']) names.add(n + suffix);
    };
    for (const m of await registry.getMetricsAsJSON()) addFamily(m.name);
    // Metrics registered lazily elsewhere (e.g. the browser pool's gauges) are declared in source.
    const walk = (dir: string): string[] =>
      fs
        .readdirSync(path.join(root, dir), { withFileTypes: true })
        .flatMap((e) =>
          e.isDirectory() ? walk(`${dir}/${e.name}`) : e.name.endsWith('.ts') ? [`${dir}/${e.name}`] : [],
        );
    for (const file of ['api', 'worker', 'shared'].flatMap(walk))
      for (const m of read(file).matchAll(/name: '(sightline_[a-z0-9_]+)'/g)) addFamily(m[1]!);
    for (const n of PLANNED) addFamily(n);
    return names;
  }

  it('is a Grafana dashboard whose panels all query the selectable Prometheus data source', () => {
    assert.equal(typeof dash.uid, 'string');
    assert.equal(typeof dash.title, 'string');
    const ds = dash.templating.list.find((v: Doc) => v.type === 'datasource');
    assert.equal(ds?.query, 'prometheus');
    assert.ok(panels.length >= 20);
    for (const p of panels) {
      assert.ok(p.targets.length > 0, `${p.title} has queries`);
      assert.deepEqual(p.datasource, { type: 'prometheus', uid: `\${${ds.name}}` }, p.title);
      for (const t of p.targets) assert.ok(t.expr.trim(), `${p.title} query is not empty`);
    }
    const ids = dash.panels.map((p: Doc) => p.id);
    assert.equal(new Set(ids).size, ids.length, 'panel ids are unique');
  });

  it('queries only metric names the code exports (or the planned scan/browser ones)', async () => {
    const known = await knownMetrics();
    const unknown = [...used].filter((n) => !known.has(n));
    assert.deepEqual(unknown, []);
  });

  it('covers the API, job, queue, process and scan/browser metrics', () => {
    const wanted = [
      'sightline_http_request_duration_seconds_count',
      'sightline_http_request_duration_seconds_bucket',
      'sightline_rate_limited_total',
      'sightline_jobs_total',
      'sightline_job_duration_seconds_bucket',
      'sightline_queue_jobs',
      'sightline_process_cpu_seconds_total',
      'sightline_process_resident_memory_bytes',
      'sightline_nodejs_eventloop_lag_p99_seconds',
      'sightline_scan_duration_seconds_bucket',
      'sightline_gatherer_failures_total',
      'sightline_browser_contexts_in_use',
      'sightline_lighthouse_runs_total',
    ];
    assert.deepEqual(
      wanted.filter((n) => !used.has(n)),
      [],
    );
    for (const q of ['0.50', '0.95', '0.99'])
      assert.ok(
        exprs.some((e) => e.includes(`histogram_quantile(${q}, sum by (route, le)`)),
        `route p${q.slice(2)}`,
      );
  });

  it('is provisioned into Grafana from the folder compose mounts it in', () => {
    const provider: Doc = parse(read('ops/grafana/provisioning/dashboards/sightline.yml'));
    const folder = provider.providers[0].options.path;
    const mount = (services.grafana.volumes as string[]).find((v) =>
      v.startsWith('./ops/grafana-dashboard.json:'),
    );
    assert.ok(mount);
    assert.equal(path.posix.dirname(mount.split(':')[1]!), folder);
    const datasources: Doc = parse(read('ops/grafana/provisioning/datasources/prometheus.yml'));
    assert.equal(datasources.datasources[0].type, 'prometheus');
    assert.equal(new URL(datasources.datasources[0].url).hostname, 'prometheus');
  });
});
