// The layers of src/: docs/architecture.md's module map names every unit once, with the layer and peers that
// .dependency-cruiser.cjs enforces, and the checker fails on an import into a higher layer, on a peer import
// that would close a cycle and on a folder without a layer.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';

const ROOT = join(import.meta.dirname, '..', '..');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
const CHECKER = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

interface PathRule {
  path?: string;
  pathNot?: string;
}
interface ForbiddenRule {
  name: string;
  from: PathRule;
  to: PathRule;
}

const { forbidden } = createRequire(import.meta.url)(CONFIG) as { forbidden: ForbiddenRule[] };

/** The units of src/: its folders and the .ts files directly in it. */
const unitsOnDisk = readdirSync(join(ROOT, 'src'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() || (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')))
  .map((entry) => entry.name)
  .sort();

const doc = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');

/** The layers, bottom first, from the diagram under "## Layers": each line a layer's name and its units. */
function layersOfDoc(): Array<{ name: string; units: string[] }> {
  const section = doc.slice(doc.indexOf('## Layers'));
  const diagram = /```\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return diagram
    .trim()
    .split('\n')
    .map((line) => {
      const [name = '', ...units] = line.trim().split(/\s+/);
      return { name, units };
    })
    .reverse();
}

interface MapRow {
  unit: string;
  layer: string;
  peers: string[];
}

/** The rows of the table under "## Module map": unit, layer, what it owns, its peers. */
function moduleMap(): MapRow[] {
  const section = doc.slice(doc.indexOf('## Module map'), doc.indexOf('\n## ', doc.indexOf('## Module map') + 1));
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `src/'))
    .map((line) => {
      const cells = line.split(' | ').map((cell) => cell.replace(/^\| |\|$/g, '').trim());
      const unit = /^`src\/([^`]+?)\/?`$/.exec(cells[0] ?? '')?.[1] ?? '';
      const peers = [...(cells.at(-1) ?? '').matchAll(/`([^`]+)`/g)].map((match) => match[1]!);
      return { unit, layer: cells[1] ?? '', peers };
    });
}

const samplePath = (unit: string) => (unit.endsWith('.ts') ? `src/${unit}` : `src/${unit}/inner/module.ts`);
const matches = (rule: PathRule, path: string) =>
  (rule.path === undefined || new RegExp(rule.path).test(path)) && (rule.pathNot === undefined || !new RegExp(rule.pathNot).test(path));

/** Whether the checker lets `from` import `to`: no forbidden rule matches the import. */
const checkerAllows = (from: string, to: string) => !forbidden.some((rule) => matches(rule.from, samplePath(from)) && matches(rule.to, samplePath(to)));

describe('layers: the module map and the checker agree', () => {
  const diagram = layersOfDoc();
  const layers = diagram.map((layer) => layer.units);
  const rows = moduleMap();

  it('names every unit of src/ once, in the layer the diagram puts it in', () => {
    assert.deepEqual(rows.map((row) => row.unit).sort(), unitsOnDisk);
    assert.deepEqual(layers.flat().sort(), unitsOnDisk);
    for (const row of rows) {
      const layer = diagram.find((candidate) => candidate.units.includes(row.unit));
      assert.equal(row.layer, layer?.name, `${row.unit} is in the ${layer?.name} line of the diagram`);
    }
  });

  it("lets each unit import exactly the lower layers and the peers the map names, and nothing else", () => {
    for (const row of rows) {
      const index = layers.findIndex((units) => units.includes(row.unit));
      const expected = new Set([...layers.slice(0, index).flat(), ...row.peers, row.unit]);
      for (const peer of row.peers) assert.ok(layers[index]!.includes(peer), `${row.unit}'s peer ${peer} is in its own layer`);
      for (const other of unitsOnDisk) {
        assert.equal(checkerAllows(row.unit, other), expected.has(other), `${row.unit} → ${other}: the map says ${expected.has(other) ? 'allowed' : 'forbidden'}`);
      }
    }
  });
});

describe('layers: the checker fails where it should', () => {
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** A fresh tree that keeps the layers, for one test to add its imports to. */
  function scratchTree() {
    const dir = mkdtempSync(join(tmpdir(), 'layers-'));
    dirs.push(dir);
    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    };
    write('tsconfig.json', JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', verbatimModuleSyntax: true } }));
    write('package.json', JSON.stringify({ type: 'module' }));
    write('src/values.ts', 'export const isText = (value: unknown): value is string => typeof value === "string";\n');
    write('src/exams/store.ts', "import { isText } from '../values.js';\nexport interface Exam { id: string }\nexport const checked = isText;\n");
    write('src/hosted/names.ts', "import type { Exam } from '../exams/store.js';\nexport const nameOf = (exam: Exam): string => exam.id;\n");

    async function violations(): Promise<string[]> {
      const run = promisify(execFile);
      const result = await run(process.execPath, [CHECKER, 'src', '--config', CONFIG, '--output-type', 'json'], { cwd: dir }).catch(
        (error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }),
      );
      const output = JSON.parse(result.stdout) as { summary: { violations: Array<{ rule: { name: string }; from: string; to: string }> } };
      return output.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort();
    }
    return { write, violations };
  }

  it('passes a tree that keeps the layers', async () => {
    const tree = scratchTree();
    assert.deepEqual(await tree.violations(), []);
  });

  it('fails an import into a higher layer (type-only too), a peer import that closes a cycle and a folder without a layer', async () => {
    const tree = scratchTree();
    tree.write('src/db/errors.ts', "import type { Exam } from '../exams/store.js';\nexport type Broken = Exam;\n");
    tree.write('src/exams/course.ts', "import { nameOf } from '../hosted/names.js';\nexport const courseName = nameOf;\n");
    tree.write('src/stray/thing.ts', "import { isText } from '../values.js';\nexport const stray = isText;\n");
    assert.deepEqual(await tree.violations(), [
      'layer-features-exams: src/exams/course.ts → src/hosted/names.ts',
      'layer-infrastructure-db: src/db/errors.ts → src/exams/store.ts',
      'unit-without-layer: src/stray/thing.ts → src/values.ts',
    ]);
  });
});
