/**
 * The architecture, enforced (docs/architecture.md): api/ and worker/ are adapters that never
 * import each other; shared/ is the layer below both and imports neither; checks are pure
 * functions of artifacts. `npm run lint` runs this.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'api-not-worker',
      comment: 'The API never imports the worker: shared/<capability> is where both meet.',
      severity: 'error',
      from: { path: '^api/' },
      to: { path: '^worker/' },
    },
    {
      name: 'worker-not-api',
      comment: 'The worker never imports the API: shared/<capability> is where both meet.',
      severity: 'error',
      from: { path: '^worker/' },
      to: { path: '^api/' },
    },
    {
      name: 'shared-is-below',
      comment: 'shared/ is the layer every process builds on; it imports no process (api, worker, cli).',
      severity: 'error',
      from: { path: '^shared/' },
      to: { path: '^(api|worker|cli|bench|test|scripts)/' },
    },
    {
      name: 'checks-are-pure',
      comment:
        'A check reads artifacts and scores them: it may import artifact types, the check and model ' +
        'types, the pure helpers of the engine (computed, parsers, security, its own lib) and of GEO ' +
        'scoring, and HTML parsing; never the network, the database, config or a process.',
      severity: 'error',
      from: { path: '^shared/(scan-engine|geo-scoring)/checks/' },
      to: {
        pathNot: [
          '^shared/scan-engine/(artifacts|check|model|curves)\\.ts$',
          '^shared/net/user-agent\\.ts$', // constants only
          '^shared/scan-engine/(checks|computed|parsers|security|models)/',
          '^shared/geo-scoring/',
          '^shared/agent-catalogue/catalogue\\.ts$',
          'node_modules/(cheerio|domhandler)/',
        ],
      },
    },
    {
      name: 'geo-scoring-is-pure',
      comment: 'GEO scoring is pure like the checks it serves: artifacts in, scores out.',
      severity: 'error',
      from: { path: '^shared/geo-scoring/' },
      to: { path: '^shared/(db|net/(?!user-agent)|jobs|config|services)' },
    },
    {
      name: 'no-circular',
      comment: 'Cycles make modules impossible to read (or load) one at a time.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|coverage)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
