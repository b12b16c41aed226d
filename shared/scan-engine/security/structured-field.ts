// RFC 8941 structured-field Item whose bare item is a token, as the HTML standard reads
// Cross-Origin-Opener-Policy and Cross-Origin-Embedder-Policy: `same-origin;report-to="x"`.
// A value that is not such an item (a quoted string, a list from a repeated header, junk) is null.
const TOKEN = /^[A-Za-z*][A-Za-z0-9!#$%&'*+.^_`|~:/-]*/;
const KEY = /^[a-z*][a-z0-9_.*-]*/;
const BARE_ITEM =
  /^(?:"(?:[^"\\]|\\["\\])*"|-?\d+(?:\.\d+)?|\?[01]|:[A-Za-z0-9+/=]*:|[A-Za-z*][A-Za-z0-9!#$%&'*+.^_`|~:/-]*)/;

export function structuredToken(value: string): string | null {
  let rest = value.replace(/^ +| +$/g, '');
  const token = TOKEN.exec(rest);
  if (!token) return null;
  rest = rest.slice(token[0].length);
  while (rest.length > 0) {
    const param = /^; */.exec(rest);
    if (!param) return null;
    rest = rest.slice(param[0].length);
    const key = KEY.exec(rest);
    if (!key) return null;
    rest = rest.slice(key[0].length);
    if (rest.startsWith('=')) {
      const bare = BARE_ITEM.exec(rest.slice(1));
      if (!bare) return null;
      rest = rest.slice(1 + bare[0].length);
    }
  }
  return token[0];
}
