import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { PROXY_ANSWER_HEADER } from '../../net/policy-proxy.ts';
import type { RenderedArtifact, RenderedViewport } from '../artifacts.ts';
import type { BrowserPool, BrowserSession } from '../browser.ts';

// The Rendered artifact: the page in headless Chromium at desktop and phone size, after scripts.
// Loading is bounded at every step (an unreachable third-party asset must not hold the scan):
// DOMContentLoaded, then `load` for a while, then a short quiet-network grace, then we measure
// whatever is there. axe-core runs in the desktop page.

/** What the browser gatherers need from a scan; a richer scan context satisfies it. */
export interface BrowserGatherContext {
  url: string;
  signal?: AbortSignal; // the scan's deadline
  timeoutMs?: number; // this gatherer's own bound
}

const DESKTOP = { width: 1350, height: 940 };
const MOBILE = { width: 375, height: 667 };
const DEFAULT_TIMEOUT_MS = 45_000;
const NAV_TIMEOUT_MS = 20_000; // until DOMContentLoaded
const LOAD_GRACE_MS = 8_000; // then wait this long for `load`
const QUIET_GRACE_MS = 1_000; // then at most this long for the network to go quiet
const MAX_HTML = 2_000_000;
const MAX_TEXT = 200_000;
const MAX_LIST = 50;

// The minified build (650 KB, the same rules as the 1.5 MB axe.js that the package's `source`
// holds): the source travels to every page as one DevTools message, which the worker serialises on
// its event loop and the page then compiles, so the smaller build costs both less.
const axeSource: string = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

// Reduced user agents of the Chromium we run, without "HeadlessChrome" (some sites refuse it).
const desktopUa = (major: string) =>
  `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Safari/537.36`;
const mobileUa = (major: string) =>
  `Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Mobile Safari/537.36`;

/**
 * Runs `fn(arg)` in the page. The function travels as source text, with the source of each of
 * `helpers` (self-contained function declarations it calls) defined before it; tsx compiles named
 * inner functions to `__name(...)` calls, so a no-op `__name` is provided around them.
 */
function inPage<A, R>(
  page: Page,
  fn: (arg: A) => R,
  arg: A,
  helpers: ((...args: never[]) => unknown)[] = [],
): Promise<Awaited<R>> {
  const defs = helpers.map((h) => `${h.toString()}\n`).join('');
  return page.evaluate(
    `(() => { const __name = (f) => f; ${defs}return (${fn.toString()})(${JSON.stringify(arg)}); })()`,
  );
}

type ViewportProbe = Omit<RenderedViewport, 'width' | 'height'>;

/** In-page: the measuring tools the viewport probes share. Self-contained (runs in the browser). */
function viewportTools() {
  const vh = window.innerHeight;
  const clean = (s: string | null | undefined) => (s ?? '').replace(/\s+/g, ' ').trim();
  const visible = (el: Element) =>
    el.checkVisibility({ opacityProperty: true, visibilityProperty: true }) &&
    el.getBoundingClientRect().width > 0 &&
    el.getBoundingClientRect().height > 0;
  const inFold = (r: DOMRect) => r.top + window.scrollY < vh && r.bottom + window.scrollY > 0;
  const label = (el: Element) =>
    clean(
      // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what a visitor sees
      (el as HTMLElement).innerText ||
        el.getAttribute('aria-label') ||
        (el as HTMLInputElement).value ||
        el.getAttribute('title') ||
        el.getAttribute('alt'),
    ).slice(0, 80);
  const describe = (el: Element) => {
    const cls = typeof el.className === 'string' ? el.className.trim().split(/\s+/)[0] : '';
    return `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${cls ? `.${cls}` : ''}`;
  };
  return { clean, visible, inFold, label, describe };
}
type ViewportTools = ReturnType<typeof viewportTools>;

/**
 * In-page: tap targets under 48x48 px. Links inline in running text are exempt, as in WCAG 2.5.8
 * and Lighthouse's old tap-targets audit: their size is the text's.
 */
function measureTapTargets(t: ViewportTools, maxExamples: number): ViewportProbe['tapTargets'] {
  const TAP =
    'a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button], [role=link], ' +
    '[role=checkbox], [role=radio], [role=switch], [role=tab], [role=menuitem], [onclick]';
  const inText = (el: Element) => {
    if (getComputedStyle(el).display !== 'inline') return false;
    const parentText = t.clean(el.parentElement?.textContent);
    return parentText.length > t.clean(el.textContent).length;
  };
  let total = 0;
  let tooSmall = 0;
  const examples: string[] = [];
  for (const el of Array.from(document.querySelectorAll(TAP)).slice(0, 3000)) {
    if (!t.visible(el) || inText(el)) continue;
    total++;
    const r = el.getBoundingClientRect();
    if (r.width < 48 || r.height < 48) {
      tooSmall++;
      if (examples.length < maxExamples)
        examples.push(`${t.describe(el)} "${t.label(el)}" ${Math.round(r.width)}x${Math.round(r.height)}`);
    }
  }
  return { total, tooSmall, examples };
}

/** In-page: the share of visible text nodes under 12 px, and the text of the first screen. */
function measureText(
  t: ViewportTools,
  maxFoldText: number,
): { smallTextRatio: number; aboveFoldText: string } {
  let textNodes = 0;
  let smallNodes = 0;
  const fold: string[] = [];
  let foldLength = 0;
  const body = document.body;
  if (body) {
    const walker = document.createTreeWalker(body, NodeFilter.SHOW_TEXT);
    const range = document.createRange();
    for (let n = walker.nextNode(); n && textNodes < 20_000; n = walker.nextNode()) {
      const text = t.clean(n.textContent);
      const parent = n.parentElement;
      if (!text || !parent || !t.visible(parent)) continue;
      textNodes++;
      if (Number.parseFloat(getComputedStyle(parent).fontSize) < 12) smallNodes++;
      if (foldLength < maxFoldText) {
        range.selectNodeContents(n);
        const r = range.getBoundingClientRect();
        if (r.width > 0 && t.inFold(r)) {
          fold.push(text);
          foldLength += text.length + 1;
        }
      }
    }
  }
  return {
    smallTextRatio: textNodes ? smallNodes / textNodes : 0,
    aboveFoldText: fold.join(' ').slice(0, maxFoldText),
  };
}

/** In-page: up to 10 calls to action on the first screen: buttons, and links styled or worded like one. */
function foldCtas(t: ViewportTools): string[] {
  const CTA_WORDS =
    /\b(get started|start|sign ?up|register|join|subscribe|buy|shop|order|book|reserve|try|demo|contact|get in touch|call|request|download|install|apply|donate|quote|free trial|add to (cart|basket|bag)|checkout|learn more|see pricing|pricing|get)\b/i;
  const ctas: string[] = [];
  const CTA_CANDIDATES = 'button, input[type=submit], input[type=button], [role=button], a[href]';
  for (const el of Array.from(document.querySelectorAll(CTA_CANDIDATES)).slice(0, 2000)) {
    if (ctas.length >= 10) break;
    if (!t.visible(el) || !t.inFold(el.getBoundingClientRect())) continue;
    const text = t.label(el);
    // Icon-only controls (a close "x", a hamburger) are not calls to action.
    if (text.length > 60 || !/\p{L}.*\p{L}/u.test(text)) continue;
    let looksLikeCta = el.tagName !== 'A';
    if (!looksLikeCta) {
      // A link is a CTA when it is named or styled like a button, or worded like an action;
      // navigation menus are not, unless a menu item is explicitly a button.
      const style = getComputedStyle(el);
      const named = /\b(btn|button|cta)\b|btn-|button-|cta-/i.test(`${el.className} ${el.id}`);
      const buttonShaped =
        style.backgroundColor !== 'rgba(0, 0, 0, 0)' &&
        style.backgroundColor !== 'transparent' &&
        (Number.parseFloat(style.paddingTop) >= 6 || Number.parseFloat(style.borderTopLeftRadius) > 0);
      const inNav = el.closest('nav, [role=navigation], [role=menubar]') !== null;
      looksLikeCta =
        named || el.getAttribute('role') === 'button' || (!inNav && (buttonShaped || CTA_WORDS.test(text)));
    }
    if (looksLikeCta && !ctas.includes(text)) ctas.push(text);
  }
  return ctas;
}

/**
 * In-page: up to 5 boxes that widen the layout viewport: past the right edge and not clipped by an
 * ancestor whose overflow hides it. Pseudo-elements are no elements here, and a decorative blob in
 * an overflow:hidden hero is clipped, so neither is counted.
 */
function wideningBoxes(t: ViewportTools): string[] {
  const root = document.documentElement;
  const body = document.body;
  const vw = root.clientWidth;
  const widening: string[] = [];
  const clipped = (el: Element) => {
    for (let a = el.parentElement; a && a !== root; a = a.parentElement) {
      const o = getComputedStyle(a).overflowX;
      if (o === 'hidden' || o === 'clip' || o === 'auto' || o === 'scroll') return true;
    }
    return false;
  };
  for (const el of Array.from(document.body?.querySelectorAll('*') ?? []).slice(0, 5000)) {
    if (widening.length >= 5) break;
    const r = el.getBoundingClientRect();
    if (r.right + window.scrollX <= vw + 2 || r.width === 0) continue;
    if (getComputedStyle(el).position === 'fixed' || clipped(el)) continue;
    // Report the outermost widening box, not each of its descendants.
    if (
      el.parentElement &&
      el.parentElement.getBoundingClientRect().right + window.scrollX > vw + 2 &&
      !clipped(el.parentElement) &&
      el.parentElement !== body
    )
      continue;
    const cls =
      typeof el.className === 'string' ? t.clean(el.className).split(' ').slice(0, 2).join('.') : '';
    widening.push(`${el.tagName.toLowerCase()}${cls ? `.${cls}` : ''} (${Math.round(r.width)} px)`);
  }
  return widening;
}

/** The in-page functions probeViewport calls, sent to the page with it. */
const PROBE_HELPERS = [viewportTools, measureTapTargets, measureText, foldCtas, wideningBoxes];

/** In-page: layout measurements for one viewport (runs in the browser with PROBE_HELPERS). */
function probeViewport(opts: { maxExamples: number; maxFoldText: number }): ViewportProbe {
  const t = viewportTools();
  const root = document.documentElement;
  const tapTargets = measureTapTargets(t, opts.maxExamples);
  const text = measureText(t, opts.maxFoldText);
  const aboveFoldCtas = foldCtas(t);
  const widening = wideningBoxes(t);
  return {
    widening,
    scrollWidth: Math.max(root.scrollWidth, document.body?.scrollWidth ?? 0),
    tapTargets,
    smallTextRatio: text.smallTextRatio,
    aboveFoldText: text.aboveFoldText,
    aboveFoldCtas,
  };
}

type AxeSummary = NonNullable<RenderedArtifact['axe']>;

/** In-page: runs the injected axe-core and reduces its result. */
async function runAxe(opts: { maxTargets: number }): Promise<AxeSummary> {
  type AxeNode = { target: unknown[] };
  type AxeRule = { id: string; impact?: string | null; help: string; nodes: AxeNode[] };
  const axe = (
    window as unknown as { axe: { run(ctx: Document, o: object): Promise<Record<string, AxeRule[]>> } }
  ).axe;
  const r = await axe.run(document, { resultTypes: ['violations'], iframes: false, elementRef: false });
  const targetText = (t: unknown[]) =>
    t.map((part) => (Array.isArray(part) ? part.join(' ') : String(part))).join(' >>> ');
  return {
    violations: (r.violations ?? []).map((v) => ({
      id: v.id,
      impact: v.impact ?? null,
      help: v.help,
      nodes: v.nodes.length,
      targets: v.nodes.slice(0, opts.maxTargets).map((n) => targetText(n.target)),
    })),
    passes: (r.passes ?? []).map((p) => p.id),
    incomplete: (r.incomplete ?? []).map((p) => p.id),
  };
}

/** axe in the page; null when it cannot run there (the rest of the artifact still stands). */
async function runAxeIn(page: Page): Promise<AxeSummary | null> {
  try {
    // Shadow AMD/CommonJS globals a page may define, so axe attaches itself to window.
    await page.evaluate(`(function (define, module, exports) { ${axeSource} }).call(window)`);
    return await inPage(page, runAxe, { maxTargets: 10 });
  } catch {
    return null;
  }
}

interface PageEvents {
  consoleErrors: Set<string>;
  failed: Map<string, string>;
}

function listen(page: Page, events: PageEvents): void {
  const add = (set: Set<string>, text: string) => {
    if (set.size < MAX_LIST) set.add(text.slice(0, 500));
  };
  const fail = (url: string, reason: string) => {
    if (events.failed.size < MAX_LIST && !events.failed.has(url)) events.failed.set(url, reason);
  };
  page.on('console', (m) => {
    if (m.type() === 'error') add(events.consoleErrors, m.text());
  });
  page.on('pageerror', (e) => add(events.consoleErrors, `Uncaught ${e.name}: ${e.message}`));
  page.on('requestfailed', (r) => fail(r.url(), r.failure()?.errorText ?? 'failed'));
  page.on('response', (r) => {
    if (r.status() >= 400) fail(r.url(), `HTTP ${r.status()}`);
  });
}

/**
 * Navigates with bounded waits; returns ms until `load` (or until we stopped waiting for it) and
 * what answered the main document.
 */
async function load(
  page: Page,
  url: string,
): Promise<{ loadMs: number; document: NonNullable<RenderedArtifact['document']> }> {
  const started = performance.now();
  const response = await page.goto(url, { waitUntil: 'domcontentloaded', timeout: NAV_TIMEOUT_MS });
  await page.waitForLoadState('load', { timeout: LOAD_GRACE_MS }).catch(() => {});
  const loadMs = performance.now() - started;
  await page.waitForLoadState('networkidle', { timeout: QUIET_GRACE_MS }).catch(() => {});
  const proxy = response?.headers()[PROXY_ANSWER_HEADER];
  return {
    loadMs: Math.round(loadMs),
    document: { status: response?.status() ?? null, ...(proxy ? { proxy } : {}) },
  };
}

async function openPage(
  session: BrowserSession,
  options: BrowserContextOptions,
  events: PageEvents,
): Promise<Page> {
  const context = await session.newContext({ ignoreHTTPSErrors: true, ...options });
  const page = await context.newPage();
  listen(page, events);
  return page;
}

async function measure(page: Page, size: { width: number; height: number }): Promise<RenderedViewport> {
  const probe = await inPage(page, probeViewport, { maxExamples: 10, maxFoldText: 3000 }, PROBE_HELPERS);
  return { ...size, ...probe };
}

/** Whether a failed request is one the policy proxy refused (reported under blockedRequests). */
function wasBlocked(url: string, blocked: readonly string[]): boolean {
  if (blocked.includes(url)) return true;
  try {
    const u = new URL(url);
    const port = u.port || (u.protocol === 'https:' || u.protocol === 'wss:' ? '443' : '80');
    return blocked.includes(`${u.hostname}:${port}`);
  } catch {
    return false;
  }
}

export async function gatherRendered(
  ctx: BrowserGatherContext,
  pool: BrowserPool,
): Promise<RenderedArtifact> {
  return pool.use({ signal: ctx.signal, timeoutMs: ctx.timeoutMs ?? DEFAULT_TIMEOUT_MS }, async (session) => {
    const major = session.browserVersion.split('.')[0] ?? '120';
    const events: PageEvents = { consoleErrors: new Set(), failed: new Map() };
    const [desktopPage, mobilePage] = await Promise.all([
      openPage(session, { viewport: DESKTOP, userAgent: desktopUa(major) }, events),
      openPage(
        session,
        {
          viewport: MOBILE,
          isMobile: true,
          hasTouch: true,
          deviceScaleFactor: 2,
          userAgent: mobileUa(major),
        },
        events,
      ),
    ]);

    // Both sizes load side by side; the desktop page then also carries the DOM, text and axe.
    const desktopWork = (async () => {
      const { loadMs, document: mainDocument } = await load(desktopPage, ctx.url);
      const desktop = await measure(desktopPage, DESKTOP);
      const dom = await inPage(
        desktopPage,
        (max: number) => ({
          html: document.documentElement.outerHTML,
          // biome-ignore lint/performance/useDomNodeTextContent: visible text only, laid out as shown
          text: (document.body?.innerText ?? '').slice(0, max),
          title: document.title,
          doctype: document.doctype ? `<!DOCTYPE ${document.doctype.name}>` : '',
        }),
        MAX_TEXT,
      );
      const axe = await runAxeIn(desktopPage);
      return { loadMs, desktop, dom, axe, finalUrl: desktopPage.url(), mainDocument };
    })();
    const mobileWork = (async () => {
      await load(mobilePage, ctx.url);
      return measure(mobilePage, MOBILE);
    })();
    const [d, mobile] = await Promise.all([desktopWork, mobileWork]);

    const blockedRequests = [...new Set(session.blocked)]; // both viewports request the same things
    return {
      finalUrl: d.finalUrl,
      document: d.mainDocument,
      html: `${d.dom.doctype}${d.dom.doctype ? '\n' : ''}${d.dom.html}`.slice(0, MAX_HTML),
      visibleText: d.dom.text,
      title: d.dom.title,
      consoleErrors: [...events.consoleErrors],
      failedRequests: [...events.failed]
        .filter(([url]) => !wasBlocked(url, blockedRequests))
        .map(([url, reason]) => ({ url, reason })),
      blockedRequests,
      desktop: d.desktop,
      mobile,
      axe: d.axe,
      timings: { loadMs: d.loadMs },
    };
  });
}
