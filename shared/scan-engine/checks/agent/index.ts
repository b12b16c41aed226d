import type { Check } from '../../check.ts';
import agentAiPlugin from './agent-ai-plugin.ts';
import agentAnswerPassages from './agent-answer-passages.ts';
import agentApiDocsLink from './agent-api-docs-link.ts';
import agentAuthorshipDates from './agent-authorship-dates.ts';
import agentCard from './agent-card.ts';
import agentCleanDom from './agent-clean-dom.ts';
import agentCommerceLinks from './agent-commerce-links.ts';
import agentContentWithoutJs from './agent-content-without-js.ts';
import agentFactualDensity from './agent-factual-density.ts';
import agentFirewallAccess from './agent-firewall-access.ts';
import agentFormActions from './agent-form-actions.ts';
import agentListsTables from './agent-lists-tables.ts';
import agentMcpManifest from './agent-mcp-manifest.ts';
import agentOfferMarkup from './agent-offer-markup.ts';
import agentOpenapi from './agent-openapi.ts';
import agentQuestionHeadings from './agent-question-headings.ts';
import agentRobotsAccess from './agent-robots-access.ts';
import agentSemanticStructure from './agent-semantic-structure.ts';

// Checks of this folder, registered here in a stable order: structure, citability,
// discoverability, agent interface, transactability (variant B agent readability).
export const agentChecks: Check[] = [
  agentContentWithoutJs,
  agentSemanticStructure,
  agentListsTables,
  agentCleanDom,
  agentAnswerPassages,
  agentFactualDensity,
  agentQuestionHeadings,
  agentAuthorshipDates,
  agentRobotsAccess,
  agentFirewallAccess,
  agentOpenapi,
  agentMcpManifest,
  agentCard,
  agentAiPlugin,
  agentApiDocsLink,
  agentOfferMarkup,
  agentCommerceLinks,
  agentFormActions,
];
