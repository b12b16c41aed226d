import type { AgentPurpose } from './catalogue.ts';

/** What a user agent is: a person, an ordinary bot, or an agent of a platform and purpose. */
export interface UaClassification {
  isBot: boolean;
  isAi: boolean;
  agent?: string; // catalogue token
  platform: string | null;
  type: AgentPurpose | null;
  /** How sure the classification is, 0..1. */
  confidence: number;
}
