import { startFixtureServer } from '../test/helpers/fixture-server.ts';

// `node --import tsx bench/serve-folder.ts ROOT`: serves ROOT on 127.0.0.1 from its own process,
// prints the port on stdout and exits when its stdin closes (the bench ending, even by SIGKILL).
// The full-scan section scans a site served this way, as a real site is served: from outside the
// worker, whose event loop that section measures.

const root = process.argv[2];
if (!root) {
  console.error('usage: serve-folder.ts ROOT');
  process.exit(2);
}
const server = await startFixtureServer({ root });
process.stdout.write(`${server.port}\n`);
process.stdin.resume();
process.stdin.on('end', () => void server.close().then(() => process.exit(0)));
