// The usage line(s) of each command, apart from the commands themselves: `sightline --help` prints
// them all without loading any command (and its dependencies), which keeps start-up short.
import { LOG_FORMATS } from '../shared/agent-traffic/log-formats.ts';

/** Bad arguments: the message (with the usage) is printed and the exit code is 2. */
export class UsageError extends Error {}

export const accountsUsage = `sightline accounts create --email E --variant A|B --tier T [--plan growth|agency] [--rate-limit N] [--json]
sightline accounts list [--email PART] [--limit N] [--json]
sightline accounts show ID [--json]`;

export const auditsUsage = `sightline audits list [--status paid|generating|delivered|failed] [--account ID] [--limit N] [--json]
sightline audits show ORDER_ID [--json]`;

export const invitesUsage =
  'sightline invites create --email E --tier T [--mail] [--json]   one-time console sign-up link (--mail: also emailed)';

export const keysUsage = `sightline keys create --account ID [--rate-limit N] [--json]
sightline keys revoke PREFIX [--json]`;

export const logsUsage = `sightline logs import --site ID [--format auto|${LOG_FORMATS.join('|')}] [--json] FILE...|-
sightline logs import --report [--format ...] [--json] FILE...|-   (analyse only: any age, nothing stored, no database)`;

export const scanUsage =
  'sightline scan URL [--mode quick|full] [--allow-host HOST[:PORT]]... [--allow-partial] [--json]   (no server or database needed)';

export const sitesUsage = `sightline sites add --account ID --url URL [--label L] [--json]
sightline sites list --account ID [--json]
sightline sites remove --account ID SITE [--json]
sightline sites refresh-ranges [--from DIR] [--out FILE] [--json]`;

export const subscriptionsUsage = `sightline subscriptions set --account ID --plan growth|agency|none [--json]
sightline subscriptions show --account ID [--json]
sightline subscriptions rotate-status-token --account ID [--json]`;
