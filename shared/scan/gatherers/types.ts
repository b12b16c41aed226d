import type { HostSlots } from '../../net/host-slots.ts';
import type { UrlPolicy } from '../../net/url-policy.ts';

/** What every quick gatherer gets: the target, the URL policy, the scan's deadline. */
export interface GatherContext {
  url: URL; // the normalised target
  policy: UrlPolicy;
  signal: AbortSignal; // aborted when the scan (or this gatherer) runs out of time
  userAgent: string; // ours: SIGHTLINE_USER_AGENT unless the caller says otherwise
  log?: (msg: string) => void;
  /** An IndexNow key the site's owner declared (monitored sites), verified by the IndexNow gatherer. */
  indexnow?: { key: string; keyLocation?: string | null };
  /** One scan's (or audit's) per-host request slots: at most 4 requests in flight to a site. */
  slots?: HostSlots;
}
