import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  evaluate,
  groupsFor,
  isAllowed,
  parseRobotsTxt,
  productTokens,
  sitemaps,
} from '../../../../shared/scan-engine/parsers/robots-txt.ts';

const GPTBOT_UA =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.1; +https://openai.com/gptbot)';
const GOOGLEBOT_UA = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

describe('parseRobotsTxt', () => {
  it('reads groups, rules, crawl-delay, sitemaps and ignored lines', () => {
    const r = parseRobotsTxt(
      [
        '# comment',
        'User-agent: GPTBot',
        'User-agent: CCBot/2.0',
        'Disallow: /private # trailing comment',
        'Crawl-delay: 5',
        '',
        'User-agent: *',
        'Allow: /',
        'Sitemap: https://example.com/sitemap.xml',
        '<br />',
        'Disallow: /tmp',
      ].join('\n'),
    );
    assert.equal(r.groups.length, 2);
    assert.deepEqual(r.groups[0]?.agents, ['gptbot', 'ccbot']);
    assert.deepEqual(
      r.groups[0]?.rules.map((x) => [x.type, x.path, x.line]),
      [['disallow', '/private', 4]],
    );
    assert.equal(r.groups[0]?.crawlDelay, 5);
    // Sitemap and garbage lines do not end the group.
    assert.deepEqual(
      r.groups[1]?.rules.map((x) => x.path),
      ['/', '/tmp'],
    );
    assert.deepEqual(r.sitemaps, ['https://example.com/sitemap.xml']);
    assert.deepEqual(r.ignoredLines, [{ line: 10, text: '<br />' }]);
  });

  it('accepts CR, LF and CRLF line endings and a leading BOM', () => {
    for (const eol of ['\n', '\r', '\r\n']) {
      const r = parseRobotsTxt(`\uFEFFUser-agent: a${eol}Disallow: /x${eol}`);
      assert.equal(r.groups[0]?.rules[0]?.path, '/x', JSON.stringify(eol));
    }
  });

  it('ignores rules outside a group and empty disallow lines', () => {
    const r = parseRobotsTxt('Disallow: /orphan\nUser-agent: a\nDisallow:\n');
    assert.equal(r.groups.length, 1);
    assert.deepEqual(r.groups[0]?.rules, []);
    assert.equal(isAllowed(r, 'a', '/orphan'), true);
  });

  it('is lenient about a missing colon and misspelt keys', () => {
    assert.equal(isAllowed('user-agent FooBot\ndisallow /\n', 'FooBot', '/x'), false);
    assert.equal(isAllowed('useragent: FooBot\ndissallow: /\n', 'FooBot', '/x'), false);
    // Prose without a colon is not mistaken for a rule.
    assert.equal(isAllowed('User-agent: *\nplease do not crawl /\n', 'FooBot', '/x'), true);
  });
});

describe('isAllowed', () => {
  const table: [robots: string, agent: string, url: string, allowed: boolean, why: string][] = [
    ['', 'GPTBot', 'https://e.com/', true, 'empty file allows everything'],
    ['User-agent: *\nDisallow: /', 'GPTBot', 'https://e.com/a', false, 'wildcard group applies'],
    [
      'User-agent: *\nDisallow: /\nUser-agent: GPTBot\nAllow: /',
      'GPTBot',
      'https://e.com/a',
      true,
      'named group beats *',
    ],
    [
      'User-agent: *\nDisallow: /\nUser-agent: gptbot\nDisallow:',
      'GPTBot',
      '/a',
      true,
      'names are case-insensitive',
    ],
    ['User-agent: OtherBot\nDisallow: /', 'GPTBot', '/a', true, 'no group for this agent'],
    [
      'User-agent: a\nDisallow: /x\n\nUser-agent: b\nDisallow: /y\n\nUser-agent: a\nDisallow: /z',
      'a',
      '/z',
      false,
      'groups of one agent merge',
    ],
    [
      'User-agent: a\nDisallow: /x\n\nUser-agent: b\nDisallow: /y\n\nUser-agent: a\nDisallow: /z',
      'a',
      '/y',
      true,
      'other agents stay apart',
    ],
    [
      'User-agent: *\nDisallow: /shop\nAllow: /shop/public',
      'x',
      '/shop/public/1',
      true,
      'longest match wins',
    ],
    [
      'User-agent: *\nAllow: /shop/public\nDisallow: /shop',
      'x',
      '/shop/private',
      false,
      'order does not matter',
    ],
    ['User-agent: *\nDisallow: /page\nAllow: /page', 'x', '/page', true, 'allow wins a tie'],
    ['User-agent: *\nDisallow: /*.pdf$', 'x', '/files/a.pdf', false, '* and $'],
    ['User-agent: *\nDisallow: /*.pdf$', 'x', '/files/a.pdf?dl=1', true, '$ anchors the end'],
    ['User-agent: *\nDisallow: /a*b*c', 'x', '/a-b-c-d', false, 'a pattern still matches a prefix'],
    ['User-agent: *\nDisallow: /a*b*c', 'x', '/a-b-x', true, 'wildcards need every literal'],
    ['User-agent: *\nDisallow: /a*b*c', 'x', '/axxbyycz', false, 'wildcards match'],
    [
      'User-agent: *\nDisallow: /search',
      'x',
      'https://e.com/search?q=1#frag',
      false,
      'query counts, fragment ignored',
    ],
    ['User-agent: *\nDisallow: /?', 'x', 'https://e.com/?q=1', false, 'query-only path'],
    ['User-agent: *\nDisallow: /Private', 'x', '/private', true, 'paths are case-sensitive'],
    [
      'User-agent: *\nDisallow: /ツ',
      'x',
      'https://e.com/%E3%83%84',
      false,
      'non-ASCII rules are percent-encoded',
    ],
    [
      'User-agent: *\nDisallow: /%e3%83%84',
      'x',
      'https://e.com/%E3%83%84',
      false,
      'escape case does not matter',
    ],
    ['User-agent: *\nDisallow: private', 'x', '/private/x', false, 'a rule without leading slash'],
    [
      'User-agent: *\nDisallow: /',
      'x',
      'https://e.com/robots.txt',
      true,
      '/robots.txt is implicitly allowed',
    ],
    ['User-agent: *\nDisallow: /', 'x', 'https://e.com', false, 'an empty path is /'],
    [
      'User-agent: GPTBot\nDisallow: /',
      GPTBOT_UA,
      'https://e.com/',
      false,
      'token found in a full UA string',
    ],
    ['User-agent: Googlebot\nDisallow: /', GOOGLEBOT_UA, '/', false, 'token in a UA comment'],
    ['User-agent: google\nDisallow: /', GOOGLEBOT_UA, '/', true, 'URL parts of a UA are not tokens'],
    ['User-agent: AI2Bot\nDisallow: /', 'AI2Bot', '/', false, 'digits in tokens (lenient default)'],
    ['User-agent: Brightbot 1.0\nDisallow: /', 'Brightbot', '/', false, 'words after the token are ignored'],
  ];
  for (const [robots, agent, url, allowed, why] of table) {
    it(`${why}: ${agent.slice(0, 20)} ${url} -> ${allowed ? 'allowed' : 'disallowed'}`, () => {
      assert.equal(isAllowed(robots, agent, url), allowed);
    });
  }

  it('in rfc mode ends names at digits and matches /robots.txt like any path', () => {
    const robots = 'User-agent: AB42bot\nDisallow: /\n';
    assert.equal(isAllowed(robots, 'AB42bot', '/x', { tokens: 'rfc' }), true);
    assert.equal(isAllowed(robots, 'AB', '/x', { tokens: 'rfc' }), false);
    assert.equal(
      isAllowed('User-agent: *\nDisallow: /', 'x', '/robots.txt', { implicitRobotsTxt: false }),
      false,
    );
  });

  it('stays fast on a pathological wildcard pattern', () => {
    const robots = `User-agent: *\nDisallow: /${'*a'.repeat(200)}b`;
    assert.equal(isAllowed(robots, 'x', `/${'a'.repeat(2000)}`), true);
  });
});

describe('evaluate and agent helpers', () => {
  const robots = parseRobotsTxt(
    'User-agent: GPTBot\nAllow: /\n\nUser-agent: CCBot\nDisallow: /\n\nUser-agent: *\nDisallow: /admin\n',
  );

  it('tells explicit from wildcard decisions and names the deciding rule', () => {
    assert.deepEqual(evaluate(robots, 'GPTBot', '/admin'), {
      allowed: true,
      via: 'explicit',
      agent: 'gptbot',
      rule: { type: 'allow', path: '/', line: 2 },
    });
    const cc = evaluate(robots, 'CCBot', '/');
    assert.equal(cc.allowed, false);
    assert.equal(cc.via, 'explicit');
    const other = evaluate(robots, 'PerplexityBot', '/admin/x');
    assert.equal(other.via, 'wildcard');
    assert.equal(other.agent, '*');
    assert.equal(other.allowed, false);
    assert.equal(evaluate(robots, 'PerplexityBot', '/blog').rule, null);
    assert.deepEqual(evaluate('User-agent: a\nDisallow: /', 'b', '/'), {
      allowed: true,
      via: 'none',
      agent: null,
      rule: null,
    });
  });

  it('evaluate says explicit only for agents a group names', () => {
    const via = (agent: string) => evaluate(robots, agent, 'https://example.com/').via;
    assert.equal(via('GPTBot'), 'explicit');
    assert.equal(via(GPTBOT_UA), 'explicit');
    assert.notEqual(via('PerplexityBot'), 'explicit');
  });

  it('groupsFor returns the named groups, else the wildcard ones', () => {
    assert.deepEqual(
      groupsFor(robots, 'CCBot').map((g) => g.agents),
      [['ccbot']],
    );
    assert.deepEqual(
      groupsFor(robots, 'Bingbot').map((g) => g.agents),
      [['*']],
    );
    assert.deepEqual(groupsFor('User-agent: a\nDisallow: /', 'b'), []);
  });

  it('productTokens reads tokens from full user-agent strings', () => {
    assert.deepEqual(productTokens('GPTBot'), ['gptbot']);
    assert.ok(productTokens(GPTBOT_UA).includes('gptbot'));
    assert.ok(productTokens(GOOGLEBOT_UA).includes('googlebot'));
    assert.ok(!productTokens(GOOGLEBOT_UA).includes('google'));
  });

  it('sitemaps resolves, deduplicates and drops non-URLs', () => {
    const r =
      'Sitemap: https://e.com/a.xml\nsitemap: /b.xml\nSitemap: https://e.com/a.xml\nSitemap: http://[bad';
    assert.deepEqual(sitemaps(r, 'https://e.com/robots.txt'), ['https://e.com/a.xml', 'https://e.com/b.xml']);
    assert.deepEqual(sitemaps(r), ['https://e.com/a.xml']);
  });
});
