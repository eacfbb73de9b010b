// Every error the tool shows to people names its words in the catalogs: an error built without a messageKey
// would reach a Spanish or Arabic reader in English. The few that only machines or the command line read are
// listed with the reason.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';

const ROOT = join(import.meta.dirname, '..', '..', '..');

/** Errors read by machines or the command line, never on a page: file → why. */
const MACHINE_FACING: Readonly<Record<string, string>> = {
  'src/hosted/routes.ts': 'hosted endpoints answer the proctoring service (JSON), not a person',
  'src/hosted/roster.ts': 'the roster errors of the hosted endpoints, answered to the proctoring service',
  'src/webhooks/subscriptions.ts': 'an unknown account is explained to administrators by its adminText, in the console and the CLI',
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'sandbox' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

interface Construction {
  where: string;
  text: string;
}

/** `new AppError(…)`, `new ForbiddenError(…)` and `super(…)` in classes that extend AppError, without a messageKey. */
function constructionsWithoutKey(file: string): Construction[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: Construction[] = [];
  const note = (node: ts.Node) => {
    const { line } = source.getLineAndCharacterOfPosition(node.getStart());
    found.push({ where: `${relative(ROOT, file)}:${line + 1}`, text: node.getText().replace(/\s+/g, ' ').slice(0, 120) });
  };
  const visit = (node: ts.Node, inAppErrorClass: boolean) => {
    let inside = inAppErrorClass;
    if (ts.isClassDeclaration(node)) {
      inside = (node.heritageClauses ?? []).some((clause) => clause.types.some((type) => type.expression.getText() === 'AppError'));
    }
    if (ts.isNewExpression(node)) {
      const name = node.expression.getText();
      if (name === 'AppError' && !node.getText().includes('messageKey')) note(node);
      if (name === 'ForbiddenError' && (node.arguments?.length ?? 0) < 3) note(node);
    }
    if (inside && ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.SuperKeyword && !node.getText().includes('messageKey')) note(node);
    ts.forEachChild(node, (child) => visit(child, inside));
  };
  visit(source, false);
  return found;
}

describe('errors shown to people', () => {
  it('name their words in the catalogs (messageKey), except the machine-facing ones listed', () => {
    const missing = sourceFiles(join(ROOT, 'src'))
      .filter((file) => !(relative(ROOT, file) in MACHINE_FACING))
      .flatMap(constructionsWithoutKey);
    assert.deepEqual(missing, [], `errors without a messageKey:\n${missing.map((m) => `${m.where}: ${m.text}`).join('\n')}`);
  });

  it('the check finds an error without a messageKey (it is not vacuous)', () => {
    const listed = Object.keys(MACHINE_FACING).flatMap((file) => constructionsWithoutKey(join(ROOT, file)));
    assert.ok(listed.length > 0, 'the machine-facing files build errors without a messageKey, which the check must see');
  });
});
