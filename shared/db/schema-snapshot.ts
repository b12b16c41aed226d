import pg from 'pg';

// The schema our migrations and function files make, as plain sorted text: tables (partitions
// aside: their set depends on the day the migrations ran) with their columns and constraints,
// indexes, enum types and function signatures of the public schema. sql/schema.snapshot.txt holds
// it (npm run schema:snapshot); a test compares it with a freshly migrated database.

export const SNAPSHOT_FILE = 'sql/schema.snapshot.txt';
export const SNAPSHOT_COMMAND = 'npm run schema:snapshot';

const TABLES = `
  select c.relname as table, c.relkind = 'p' as partitioned
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
   where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition`;

const COLUMNS = `
  select c.relname as table, a.attname as column, format_type(a.atttypid, a.atttypmod) as type,
         a.attnotnull as not_null, pg_get_expr(d.adbin, d.adrelid) as default_value
    from pg_attribute a
    join pg_class c on c.oid = a.attrelid
    join pg_namespace n on n.oid = c.relnamespace
    left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
   where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition
     and a.attnum > 0 and not a.attisdropped
   order by c.relname, a.attnum`;

const CONSTRAINTS = `
  select c.relname as table, k.conname as name, pg_get_constraintdef(k.oid) as definition
    from pg_constraint k
    join pg_class c on c.oid = k.conrelid
    join pg_namespace n on n.oid = c.relnamespace
   where n.nspname = 'public' and not c.relispartition`;

const INDEXES = `
  select i.indexdef as definition
    from pg_indexes i
    join pg_class c on c.relname = i.tablename
    join pg_namespace n on n.oid = c.relnamespace and n.nspname = i.schemaname
   where i.schemaname = 'public' and not c.relispartition`;

const ENUMS = `
  select t.typname as name, string_agg(e.enumlabel, ', ' order by e.enumsortorder) as labels
    from pg_type t join pg_enum e on e.enumtypid = t.oid join pg_namespace n on n.oid = t.typnamespace
   where n.nspname = 'public'
   group by t.typname`;

const FUNCTIONS = `
  select p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ') returns ' ||
         pg_get_function_result(p.oid) as signature
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace
   where n.nspname = 'public'
     and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')`;

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The snapshot of the database at `url`. */
export async function schemaSnapshot(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url, application_name: 'sightline-schema-snapshot' });
  await client.connect();
  try {
    const q = async <T extends pg.QueryResultRow>(text: string) => (await client.query<T>(text)).rows;
    const tables = await q<{ table: string; partitioned: boolean }>(TABLES);
    const columns = await q<{
      table: string;
      column: string;
      type: string;
      not_null: boolean;
      default_value: string | null;
    }>(COLUMNS);
    const constraints = await q<{ table: string; name: string; definition: string }>(CONSTRAINTS);
    const lines: string[] = ['# Schema snapshot: regenerate with `npm run schema:snapshot`', '', '## Tables'];
    for (const { table, partitioned } of tables.sort((a, b) => byText(a.table, b.table))) {
      lines.push('', `${table}${partitioned ? ' (partitioned)' : ''}`);
      for (const c of columns.filter((c) => c.table === table)) {
        const extra = [c.not_null ? 'not null' : '', c.default_value ? `default ${c.default_value}` : '']
          .filter(Boolean)
          .join(' ');
        lines.push(`  ${c.column} ${c.type}${extra ? ` ${extra}` : ''}`);
      }
      const own = constraints
        .filter((k) => k.table === table)
        .map((k) => `  constraint ${k.name} ${k.definition}`);
      lines.push(...own.sort(byText));
    }
    lines.push(
      '',
      '## Indexes',
      '',
      ...(await q<{ definition: string }>(INDEXES)).map((i) => i.definition).sort(byText),
    );
    const enums = (await q<{ name: string; labels: string }>(ENUMS)).map((e) => `${e.name}: ${e.labels}`);
    lines.push('', '## Enum types', '', ...enums.sort(byText));
    const functions = (await q<{ signature: string }>(FUNCTIONS)).map((f) => f.signature);
    lines.push('', '## Functions', '', ...functions.sort(byText), '');
    return lines.join('\n');
  } finally {
    await client.end();
  }
}

/**
 * A line diff of two snapshots (longest common subsequence): each line only in `want` (-) or only
 * in `got` (+), with its line number in that text, in order.
 */
export function snapshotDiff(want: string, got: string): string {
  const w = want.split('\n');
  const g = got.split('\n');
  // common[i][j]: length of the longest common subsequence of w[i..] and g[j..].
  const common = Array.from({ length: w.length + 1 }, () => new Array<number>(g.length + 1).fill(0));
  for (let i = w.length - 1; i >= 0; i--)
    for (let j = g.length - 1; j >= 0; j--)
      common[i]![j] =
        w[i] === g[j] ? common[i + 1]![j + 1]! + 1 : Math.max(common[i + 1]![j]!, common[i]![j + 1]!);
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < w.length || j < g.length) {
    if (i < w.length && j < g.length && w[i] === g[j]) {
      i++;
      j++;
    } else if (j >= g.length || (i < w.length && common[i + 1]![j]! >= common[i]![j + 1]!)) {
      out.push(`- ${i + 1}: ${w[i]}`);
      i++;
    } else {
      out.push(`+ ${j + 1}: ${g[j]}`);
      j++;
    }
  }
  return out.join('\n');
}
