// The models scored for every scan (monitoring, GEO and citability score on demand from artifacts).
// A module of its own: the processes that only start scans (and score them in the scoring thread)
// need the names, not the checks and models behind them.
export const SCAN_MODELS = ['site-audit', 'agent-readability'] as const;
