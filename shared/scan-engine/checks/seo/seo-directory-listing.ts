import { defineCheck, fail, notApplicable, pass } from '../../check.ts';
import { directoryListingServer } from '../../computed/page-kind.ts';

// A server's auto-generated directory index (Apache/nginx "Index of /", Python's "Directory
// listing for /", IIS "[To Parent Directory]" ...) is no page: it has nothing to rank, and it
// exposes the folder's files. The content dimensions are not computed from it (page-kind.ts).

export default defineCheck({
  meta: {
    id: 'seo-directory-listing',
    title: 'URL serves a page, not a directory listing',
    failureTitle: 'URL serves an auto-generated directory listing',
    description:
      'The web server lists the folder because it has no index document. Add an index page, or turn directory listing off (Apache: Options -Indexes; nginx: autoindex off).',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    if (Page.status < 200 || Page.status >= 300) return notApplicable('Page did not answer 2xx');
    const server = directoryListingServer(Page.html);
    if (server)
      return fail(
        `This URL serves an auto-generated directory listing (${server}), not a page: add an index page or turn directory listing off`,
        { server },
      );
    return pass('URL serves a page, not a directory listing');
  },
});
