import { defineCheck, graded, pass } from '../../check.ts';
import { plural } from '../content/lib/page.ts';
import { fetched, kib, scoreWastedMs, seconds, shortName, transferMs } from './lib/network.ts';

// After Lighthouse's uses-text-compression: text responses of 1.4 KB or more (smaller ones fit in
// a packet either way) should be served with gzip, brotli or zstd. Without the bodies we assume
// compression would save 70%, the low end of what gzip achieves on HTML, CSS and JavaScript.
const MIN_BYTES = 1400;
const ASSUMED_SAVING = 0.7;
const COMPRESSED = /\b(gzip|br|zstd|deflate|compress)\b/i;
const TEXT = /^text\/|javascript|json|xml|svg|css/i;

interface Candidate {
  url: string;
  bytes: number;
  compressed: boolean;
}

export default defineCheck({
  meta: {
    id: 'speed-compression',
    title: 'Text resources are compressed',
    failureTitle: 'Text resources are not compressed',
    description:
      'HTML, CSS and JavaScript shrink by 70-90% with gzip or brotli. Enable compression on the server or CDN for all text responses.',
    requiredArtifacts: ['Page', 'Resources'],
  },
  run({ Page, Resources }) {
    const candidates: Candidate[] = [
      {
        url: Page.finalUrl,
        bytes: Page.bytes.transferred,
        compressed: COMPRESSED.test(Page.contentEncoding ?? ''),
      },
      ...fetched(Resources.entries)
        .filter((e) =>
          e.contentType ? TEXT.test(e.contentType) : e.type === 'script' || e.type === 'stylesheet',
        )
        .map((e) => ({ url: e.url, bytes: e.bytes, compressed: COMPRESSED.test(e.contentEncoding ?? '') })),
    ].filter((c) => c.bytes >= MIN_BYTES);
    if (candidates.length === 0) return pass('No text response is large enough to need compression');
    const plain = candidates.filter((c) => !c.compressed);
    const wastedBytes = plain.reduce((s, c) => s + c.bytes * ASSUMED_SAVING, 0);
    const wastedMs = transferMs(wastedBytes);
    const evidence = {
      uncompressed: plain.map((c) => ({ url: c.url, bytes: c.bytes })),
      checked: candidates.length,
      estimatedSavingBytes: Math.round(wastedBytes),
    };
    if (plain.length === 0)
      return pass(`Text responses are compressed (${plural(candidates.length, 'response')})`, evidence);
    const score = scoreWastedMs(wastedMs);
    if (score >= 0.9) {
      return graded(
        score,
        `Text responses are compressed but for ${plural(plain.length, 'small one')} (about ${kib(wastedBytes)} to gain)`,
        evidence,
      );
    }
    const names = plain
      .slice(0, 3)
      .map((c) => (c.url === Page.finalUrl ? 'the page HTML' : shortName(c.url)))
      .join(', ');
    return graded(
      score,
      `${plain.length} of ${candidates.length} text responses are not compressed (${names}${plain.length > 3 ? ', ...' : ''}); compression would save about ${kib(wastedBytes)} (${seconds(wastedMs)} on a slow 4G connection)`,
      evidence,
    );
  },
});
