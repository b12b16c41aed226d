// Lighthouse runs in this process, kept warm across runs by worker/browser/lighthouse.ts (which
// owns each run's deadline and kills this process group when one expires). Plain ESM, started
// with bare `node`: loading Lighthouse through the tsx loader would add about a second.
//
// Protocol (IPC), one job at a time: the parent sends
//   { url, port, proxyUrl, categories: string[], maxWaitForLoad: number }
// (port: the DevTools port of the browser to use, on 127.0.0.1; proxyUrl: the policy proxy for
// the run's traffic). We answer { type: 'context', id } once the run's browser context exists
// (so the parent can close it if it has to kill us), then { type: 'result', lhr } (audit details
// stripped) or { type: 'error', message }.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

// Loaded now, while the parent finds or launches the browser: the first run does not wait for it.
// Besides the public entry point, the parts it is made of (Lighthouse is pinned to an exact
// version in package.json): `lighthouse()` resolves its configuration on every call, which costs
// about a second (mostly formatting every audit's strings to validate them), so a warm process
// resolves it once and gives each run fresh gatherer instances (they keep per-run state).
// puppeteer-core is the one Lighthouse itself depends on (not one of ours), to open a context.
const requireFromLighthouse = createRequire(import.meta.resolve('lighthouse'));
const lighthouseModule = (sub) => import(`lighthouse/${sub}`);
const loading = Promise.all([
  import(pathToFileURL(requireFromLighthouse.resolve('puppeteer-core')).href).then((m) => m.default),
  import(pathToFileURL(requireFromLighthouse.resolve('lighthouse-logger')).href).then((m) => m.default),
  lighthouseModule('core/runner.js'),
  lighthouseModule('core/gather/navigation-runner.js'),
  lighthouseModule('core/gather/driver.js'),
  lighthouseModule('core/gather/base-artifacts.js'),
  lighthouseModule('core/config/config.js'),
  lighthouseModule('core/lib/url-utils.js'),
]).then(([puppeteer, log, runner, navigation, driver, base, config, url]) => {
  log.setLevel('error');
  return {
    puppeteer,
    Runner: runner.Runner,
    navigation,
    Driver: driver.Driver,
    finalizeArtifacts: base.finalizeArtifacts,
    initializeConfig: config.initializeConfig,
    UrlUtils: url.default,
  };
});
loading.catch(() => {}); // reported by the first job

// The parent gone (even killed by SIGKILL): nobody needs us any more.
process.on('disconnect', () => process.exit(1));

let browser = null;
let browserPort = 0;

/** One DevTools connection per browser, kept across runs (the pool relaunches a crashed one). */
async function connect(puppeteer, port) {
  if (browser?.connected && browserPort === port) return browser;
  const old = browser;
  browser = null;
  await old?.disconnect().catch(() => {});
  browser = await puppeteer.connect({ browserURL: `http://127.0.0.1:${port}`, defaultViewport: null });
  browserPort = port;
  return browser;
}

/** The report without audit details (the bulk of it; checks use scores and values). */
function slim(lhr) {
  const audits = {};
  for (const [id, a] of Object.entries(lhr.audits ?? {})) {
    audits[id] = {
      id,
      title: a.title,
      score: a.score,
      scoreDisplayMode: a.scoreDisplayMode,
      numericValue: a.numericValue,
      displayValue: a.displayValue,
    };
  }
  const categories = {};
  for (const [id, c] of Object.entries(lhr.categories ?? {}))
    categories[id] = { id, title: c.title, score: c.score };
  return {
    lighthouseVersion: lhr.lighthouseVersion,
    finalDisplayedUrl: lhr.finalDisplayedUrl,
    runtimeError: lhr.runtimeError,
    runWarnings: lhr.runWarnings,
    categories,
    audits,
    timing: { total: lhr.timing?.total },
  };
}

/** Resolved configurations by their flags (a worker uses one or two: the deadline sets maxWaitForLoad). */
const configs = new Map();

/** The resolved configuration for these flags, with fresh gatherer instances and settings. */
async function configFor(lh, flags) {
  const key = JSON.stringify(flags);
  let resolving = configs.get(key);
  if (!resolving) {
    resolving = lh.initializeConfig('navigation', undefined, flags).then((r) => r.resolvedConfig);
    resolving.catch(() => configs.delete(key));
    configs.set(key, resolving);
  }
  const resolved = await resolving;
  return {
    ...resolved,
    settings: structuredClone(resolved.settings),
    artifacts: resolved.artifacts?.map((a) => ({
      ...a,
      gatherer: { ...a.gatherer, instance: new a.gatherer.implementation() },
    })),
  };
}

/** What `lighthouse(url, flags, undefined, page)` does (core/index.js, navigationGather), minus the config. */
async function navigation(lh, url, flags, page) {
  const resolvedConfig = await configFor(lh, flags);
  const computedCache = new Map();
  const options = { resolvedConfig, computedCache };
  const artifacts = await lh.Runner.gather(async () => {
    const driver = new lh.Driver(page);
    const context = { driver, page, resolvedConfig, requestor: lh.UrlUtils.normalizeUrl(url), computedCache };
    const { baseArtifacts } = await lh.navigation._setup(context);
    const gathered = await lh.navigation._navigation({ ...context, baseArtifacts });
    await lh.navigation._cleanup(context);
    return lh.finalizeArtifacts(baseArtifacts, gathered);
  }, options);
  return lh.Runner.audit(artifacts, options);
}

async function run(job) {
  const lh = await loading;
  const b = await connect(lh.puppeteer, job.port);
  // A fresh context per run, as a fresh profile is for the Lighthouse CLI: no cookies, cache or
  // storage from earlier runs, and its own proxy.
  const context = await b.createBrowserContext({
    proxyServer: job.proxyUrl,
    proxyBypassList: ['<-loopback>'],
  });
  process.send({ type: 'context', id: context.id });
  try {
    const page = await context.newPage();
    const result = await navigation(
      lh,
      job.url,
      {
        output: 'json',
        logLevel: 'error',
        onlyCategories: job.categories,
        maxWaitForLoad: job.maxWaitForLoad,
      },
      page,
    );
    if (!result) throw new Error('Lighthouse returned no result');
    return slim(result.lhr);
  } finally {
    await context.close().catch(() => {});
  }
}

process.on('message', async (job) => {
  let message;
  try {
    message = { type: 'result', lhr: await run(job) };
  } catch (err) {
    message = { type: 'error', message: err instanceof Error ? err.message : String(err) };
  }
  if (process.connected) process.send(message);
});
