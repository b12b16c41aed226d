// Set-Cookie values reduced to what security grading needs (RFC 6265bis attribute names).
export interface CookieInfo {
  name: string;
  secure: boolean;
  httpOnly: boolean;
  /** The SameSite value lower-cased when it is Strict, Lax or None; null when absent or unknown. */
  sameSite: 'strict' | 'lax' | 'none' | null;
  /** A SameSite attribute is present but its value is missing or not Strict/Lax/None. */
  sameSiteInvalid: boolean;
}

export function parseSetCookie(header: string): CookieInfo | null {
  const [pair = '', ...attributes] = header.split(';');
  const eq = pair.indexOf('=');
  const name = (eq >= 0 ? pair.slice(0, eq) : '').trim();
  if (eq < 0 && pair.trim() === '') return null;
  const cookie: CookieInfo = { name, secure: false, httpOnly: false, sameSite: null, sameSiteInvalid: false };
  for (const attr of attributes) {
    const i = attr.indexOf('=');
    const key = (i >= 0 ? attr.slice(0, i) : attr).trim().toLowerCase();
    const value =
      i >= 0
        ? attr
            .slice(i + 1)
            .trim()
            .toLowerCase()
        : '';
    if (key === 'secure') cookie.secure = true;
    else if (key === 'httponly') cookie.httpOnly = true;
    else if (key === 'samesite') {
      if (value === 'strict' || value === 'lax' || value === 'none') cookie.sameSite = value;
      else cookie.sameSiteInvalid = true;
    }
  }
  return cookie;
}
