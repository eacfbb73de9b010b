/**
 * Counts the type assertions (`value as T`, `<T>value`) under a folder (default `src/`), `as const` excepted:
 * `npx tsx scripts/count-casts.ts [folder] [--list]`. Each assertion is one, so `x as unknown as T` counts two.
 * Those on request input (`req.body`, `req.query`, `req.params`, cookies) or on `res.locals` are counted apart:
 * there should be none, since routes parse that input (src/http/request-input.ts).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

export interface Cast {
  file: string;
  line: number;
  text: string;
  /** True when the asserted value is request input or `res.locals`. */
  boundary: boolean;
}

const BOUNDARY_MEMBERS = /\b(?:req|request)\.(?:body|query|params|cookies|signedCookies)\b|\.locals\b/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

const isAsConst = (node: ts.AsExpression | ts.TypeAssertion) =>
  ts.isTypeReferenceNode(node.type) && ts.isIdentifier(node.type.typeName) && node.type.typeName.text === 'const';

export function casts(root: string): Cast[] {
  const found: Cast[] = [];
  for (const path of sourceFiles(root)) {
    const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if ((ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) && !isAsConst(node)) {
        found.push({
          file: relative(process.cwd(), path),
          line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1,
          text: node.getText(source).replace(/\s+/g, ' ').slice(0, 120),
          boundary: BOUNDARY_MEMBERS.test(node.expression.getText(source)),
        });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

function main(args: string[]): void {
  const root = args.find((arg) => !arg.startsWith('--')) ?? 'src';
  const found = casts(root);
  if (args.includes('--list')) for (const cast of found) console.log(`${cast.file}:${cast.line}  ${cast.text}`);
  console.log(`${found.length} casts, ${found.filter((cast) => cast.boundary).length} of them on request input or res.locals`);
}

if (import.meta.url === `file://${process.argv[1]}`) main(process.argv.slice(2));
