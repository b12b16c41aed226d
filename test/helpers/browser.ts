// Browser tests skip on a machine without Chromium, so a contributor without one still gets a
// green quick run. CI sets SIGHTLINE_REQUIRE_BROWSER=1: there a missing browser fails the file
// instead of quietly skipping the full-mode tests.

export const browserRequired = process.env.SIGHTLINE_REQUIRE_BROWSER === '1';

/** The `skip` option of a browser test: false when `found`, else the reason (or a failure in CI). */
export function skipUnlessBrowser(found: unknown, reason = 'no Chromium installed'): false | string {
  if (found) return false;
  if (browserRequired)
    throw new Error(`SIGHTLINE_REQUIRE_BROWSER=1 but ${reason}: install Chromium (npm run setup)`);
  return `${reason} (run \`npm run setup\` or set CHROMIUM_PATH)`;
}
