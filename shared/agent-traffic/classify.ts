import { classifyUserAgent, type UaClassification } from '../agents/classify.ts';

// Visit classification for agent traffic: the shared user-agent classifier, plus the rule that a
// desktop application built on Electron (VS Code, Trae, Cursor windows) is a person using an app,
// not an agent, even when the app's product token is also an agent's name. Browsers are never agents.

const ELECTRON_APP = /\bElectron\/\d/;

export function classifyVisit(ua: string): UaClassification {
  const c = classifyUserAgent(ua);
  if ((c.isAi || c.agent) && ELECTRON_APP.test(ua) && /\bChrome\/\d/.test(ua))
    return { isBot: false, isAi: false, platform: null, type: null, confidence: 0.8 };
  return c;
}

/** True when the visit is stored as an agent event: a catalogued agent or an AI-marked bot. */
export const isAgentVisit = (c: UaClassification) => Boolean(c.agent || c.isAi);

// Per user agent, the visit's classification as the ingest pipeline reads it: shared, frozen
// objects (classifyUserAgent copies its cached result for each call, a visible share of an import).
const visits = new Map<string, Readonly<UaClassification>>();
const MAX_VISITS = 2000;

/** classifyVisit, cached: the same frozen object for the same user agent. */
export function classifyVisitCached(ua: string): Readonly<UaClassification> {
  let c = visits.get(ua);
  if (!c) {
    c = Object.freeze(classifyVisit(ua));
    if (visits.size >= MAX_VISITS) visits.delete(visits.keys().next().value as string);
    visits.set(ua, c);
  }
  return c;
}
