import { classifyUserAgent, type UaClassification } from './classify.ts';

// Visit classification for agent traffic: the shared user-agent classifier, plus the rule that a
// desktop application built on Electron (VS Code, Trae, Cursor windows) is a person using an app,
// not an agent, even when the app's product token is also an agent's name. Browsers are never agents.

const ELECTRON_APP = /\bElectron\/\d/;

const APP_USER: Readonly<UaClassification> = Object.freeze({
  isBot: false,
  isAi: false,
  platform: null,
  type: null,
  confidence: 0.8,
});

/** The visit's classification: shared, frozen objects (the classifier caches per user agent). */
export function classifyVisit(ua: string): Readonly<UaClassification> {
  const c = classifyUserAgent(ua);
  if ((c.isAi || c.agent) && ELECTRON_APP.test(ua) && /\bChrome\/\d/.test(ua)) return APP_USER;
  return c;
}
