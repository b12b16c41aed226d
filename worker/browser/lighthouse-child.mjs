// One Lighthouse run in its own process (spawned by worker/browser/lighthouse.ts, which owns the
// deadline and kills this process group on expiry). Plain ESM, started with bare `node`: loading
// Lighthouse through the tsx loader would add about a second to every run.
//
// Protocol (IPC): the parent sends one job
//   { url, chromiumPath, chromeFlags: string[], userDataDir, categories: string[], maxWaitForLoad: number }
// and receives { type: 'result', lhr } (audit details stripped) or { type: 'error', message }.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';

const LAUNCH_TIMEOUT_MS = 30_000;
let chrome = null;
let profile = null;

function killChrome() {
  try {
    chrome?.kill('SIGKILL');
  } catch {
    // already gone
  }
}

let exiting = false;

/**
 * Ends the run: kills Chromium and exits. When the parent is gone (even killed by SIGKILL) nobody
 * else will clean up, so we also remove the profile and end our whole process group, which
 * takes any Chromium helper still running with it.
 */
function shutdown(code) {
  if (exiting) return;
  exiting = true;
  const orphaned = !process.connected;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    if (!orphaned) process.exit(code); // the parent kills our group and removes the profile
    try {
      if (profile) rmSync(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    } finally {
      try {
        process.kill(-process.pid, 'SIGKILL'); // we lead the group (spawned detached)
      } catch {
        process.exit(code);
      }
    }
  };
  if (chrome && chrome.exitCode === null && chrome.signalCode === null) {
    chrome.once('exit', end);
    setTimeout(end, 3000); // in case the exit event never comes
    killChrome();
  } else end();
}

process.on('disconnect', () => shutdown(1));

/** Starts Chromium in this process group; resolves with its DevTools port. */
function launchChrome(path, flags) {
  return new Promise((resolve, reject) => {
    chrome = spawn(path, [...flags, '--remote-debugging-port=0', 'about:blank'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let output = '';
    const timer = setTimeout(
      () => fail(new Error('Chromium did not open its DevTools port in time')),
      LAUNCH_TIMEOUT_MS,
    );
    function fail(err) {
      clearTimeout(timer);
      killChrome();
      reject(err);
    }
    const onExit = (code, signal) =>
      fail(new Error(`Chromium exited during start-up (${signal ?? code}): ${output.slice(-1000)}`));
    const onData = (chunk) => {
      output = (output + chunk).slice(-8000);
      const m = /DevTools listening on ws:\/\/[^:/]+:(\d+)\//.exec(output);
      if (m) {
        clearTimeout(timer);
        chrome.stderr.off('data', onData);
        chrome.stderr.resume(); // keep draining so Chromium never blocks on a full pipe
        chrome.off('exit', onExit); // only ours: shutdown() may be waiting for this exit too
        resolve(Number(m[1]));
      }
    };
    chrome.on('error', fail);
    chrome.on('exit', onExit);
    chrome.stderr.setEncoding('utf8');
    chrome.stderr.on('data', onData);
  });
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

function reply(message, code) {
  if (!process.connected) return shutdown(1);
  // Lighthouse leaves handles open for a few seconds after a run; we are done now.
  process.send(message, () => shutdown(code));
}

process.once('message', async (job) => {
  profile = job.userDataDir;
  try {
    // Loading Lighthouse and starting Chromium overlap.
    const [lighthouse, port] = await Promise.all([
      import('lighthouse').then((m) => m.default),
      launchChrome(job.chromiumPath, job.chromeFlags),
    ]);
    const result = await lighthouse(job.url, {
      port,
      output: 'json',
      logLevel: 'error',
      onlyCategories: job.categories,
      maxWaitForLoad: job.maxWaitForLoad,
    });
    if (!result) throw new Error('Lighthouse returned no result');
    reply({ type: 'result', lhr: slim(result.lhr) }, 0);
  } catch (err) {
    reply({ type: 'error', message: err instanceof Error ? err.message : String(err) }, 1);
  }
});
