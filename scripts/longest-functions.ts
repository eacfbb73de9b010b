/**
 * Lists the longest functions under a folder (default `src/`), longest first, with their line counts:
 * `npx tsx scripts/longest-functions.ts [folder] [--top N] [--max LINES]`. With `--max`, exits 1 when a
 * function is longer. A function's length is counted from its first to its last line, nested functions
 * included (they are listed on their own as well).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

export interface FunctionLength {
  file: string;
  name: string;
  line: number;
  lines: number;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

function nameOf(node: ts.Node, source: ts.SourceFile): string {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name) return node.name.getText(source);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText(source);
  if (ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText(source).slice(0, 40)})`;
  return '(anonymous)';
}

export function functionLengths(root: string): FunctionLength[] {
  const found: FunctionLength[] = [];
  for (const path of sourceFiles(root)) {
    const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        found.push({ file: relative(process.cwd(), path), name: nameOf(node, source), line: start + 1, lines: end - start + 1 });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found.sort((a, b) => b.lines - a.lines);
}

function main(args: string[]): void {
  const option = (name: string): number | undefined => {
    const at = args.indexOf(name);
    return at >= 0 ? Number(args[at + 1]) : undefined;
  };
  const root = args.find((arg, i) => !arg.startsWith('--') && !args[i - 1]?.startsWith('--')) ?? 'src';
  const top = option('--top') ?? 10;
  const max = option('--max');
  const lengths = functionLengths(root);
  for (const f of lengths.slice(0, top)) console.log(`${String(f.lines).padStart(5)}  ${f.name}  ${f.file}:${f.line}`);
  if (max !== undefined) {
    const over = lengths.filter((f) => f.lines > max);
    if (over.length > 0) {
      console.error(`${over.length} function(s) over ${max} lines`);
      process.exitCode = 1;
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) main(process.argv.slice(2));
