import { LETTER_GRADES, type ScoringModel } from '../model.ts';

// Variant B: how well AI agents can read, cite, find, call and transact with a page. The five
// dimension ids and weights are fixed by the interface; methodologyVersion is this version.
// Agent Correlation is a research signal with weight 0: the correlation (mapped to 0-100)
// between page readability and the agent visits observed on a registered site, computed from
// traffic, not from checks.
export const agentReadabilityModel: ScoringModel = {
  id: 'agent-readability',
  version: '2.0.1',
  description: 'Agent readability: structure, citability, discoverability, agent interface, transactability',
  dimensions: [
    {
      id: 'structure',
      name: 'Structure',
      weight: 0.25,
      checks: [
        { id: 'agent-content-without-js', weight: 0.4 },
        { id: 'agent-semantic-structure', weight: 0.25 },
        { id: 'agent-lists-tables', weight: 0.15 },
        { id: 'agent-clean-dom', weight: 0.2 },
      ],
    },
    {
      id: 'citability',
      name: 'Citability',
      weight: 0.25,
      checks: [
        { id: 'agent-answer-passages', weight: 0.35 },
        { id: 'agent-factual-density', weight: 0.25 },
        { id: 'agent-question-headings', weight: 0.15 },
        { id: 'agent-authorship-dates', weight: 0.25 },
      ],
    },
    {
      id: 'discoverability',
      name: 'Discoverability',
      weight: 0.15,
      pageIndependent: true, // robots.txt, llms.txt, sitemap, firewall: the site, not the page
      checks: [
        { id: 'agent-robots-access', weight: 0.35 },
        { id: 'agent-firewall-access', weight: 0.25 },
        { id: 'llms-txt-present', weight: 0.1 },
        { id: 'llms-txt-structure', weight: 0.1 },
        { id: 'seo-sitemap', weight: 0.2 },
      ],
    },
    {
      id: 'agent_interface',
      name: 'Agent Interface',
      weight: 0.2,
      pageIndependent: true, // well-known files
      checks: [
        { id: 'agent-openapi', weight: 0.3 },
        { id: 'agent-mcp-manifest', weight: 0.3 },
        { id: 'agent-card', weight: 0.15 },
        { id: 'agent-ai-plugin', weight: 0.1 },
        { id: 'agent-api-docs-link', weight: 0.15 },
      ],
    },
    {
      id: 'transactability',
      name: 'Transactability',
      weight: 0.15,
      checks: [
        { id: 'agent-offer-markup', weight: 0.45 },
        { id: 'agent-commerce-links', weight: 0.3 },
        { id: 'agent-form-actions', weight: 0.25 },
      ],
    },
  ],
  grades: LETTER_GRADES,
  researchSignals: [{ id: 'agent_correlation', name: 'Agent Correlation' }],
};
