/** Our crawler's user agent, sent on every fetch unless a caller says otherwise. */
export const SIGHTLINE_USER_AGENT = 'Mozilla/5.0 (compatible; SightlineBot/1.0; +https://sightline.dev/bot)';

/** A current desktop Chrome user agent: the baseline a site would serve to a person. */
export const BROWSER_USER_AGENT =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
