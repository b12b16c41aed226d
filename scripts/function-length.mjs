#!/usr/bin/env node
// Lists functions longer than a limit (default 100 lines) in api/ worker/ shared/ cli/, longest
// first, and exits 1 when there is any. A function's length is its lines from the first to the
// last, as read; nested functions are counted on their own and within their parent.
//   node scripts/function-length.mjs [--max 100] [--report]   (--report: list, exit 0)
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const args = process.argv.slice(2);
const max = Number(args[args.indexOf('--max') + 1]) || 100;
const reportOnly = args.includes('--report');
const ROOTS = ['api', 'worker', 'shared', 'cli'];

function* files(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* files(p);
    else if (p.endsWith('.ts') && !p.endsWith('.d.ts')) yield p;
  }
}

const isFunction = (n) =>
  ts.isFunctionDeclaration(n) ||
  ts.isMethodDeclaration(n) ||
  ts.isArrowFunction(n) ||
  ts.isFunctionExpression(n) ||
  ts.isConstructorDeclaration(n) ||
  ts.isGetAccessorDeclaration(n) ||
  ts.isSetAccessorDeclaration(n);

function nameOf(n) {
  if (n.name && ts.isIdentifier(n.name)) return n.name.text;
  if (ts.isConstructorDeclaration(n)) return 'constructor';
  const p = n.parent;
  if (p && ts.isVariableDeclaration(p) && ts.isIdentifier(p.name)) return p.name.text;
  if (p && ts.isPropertyAssignment(p) && ts.isIdentifier(p.name)) return p.name.text;
  if (p && ts.isCallExpression(p)) return `(callback of ${p.expression.getText().slice(0, 40)})`;
  return '(anonymous)';
}

const long = [];
for (const root of ROOTS) {
  if (!fs.existsSync(root)) continue;
  for (const file of files(root)) {
    const text = fs.readFileSync(file, 'utf8');
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (n) => {
      if (isFunction(n) && n.body) {
        const start = source.getLineAndCharacterOfPosition(n.getStart(source)).line;
        const end = source.getLineAndCharacterOfPosition(n.end).line;
        const lines = end - start + 1;
        if (lines > max) long.push({ file, line: start + 1, name: nameOf(n), lines });
      }
      ts.forEachChild(n, visit);
    };
    visit(source);
  }
}

long.sort((a, b) => b.lines - a.lines);
for (const f of long) console.log(`${String(f.lines).padStart(4)}  ${f.file}:${f.line}  ${f.name}`);
console.log(`${long.length} function(s) over ${max} lines in ${ROOTS.join(', ')}`);
process.exit(long.length && !reportOnly ? 1 : 0);
