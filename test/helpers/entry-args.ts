// How a test starts the tool or the CLI in a process of its own. No import of the tool's code: a test that only
// starts processes loads nothing else.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The shared key pairs, and the compile cache where the Node.js version has one. */
const PRELOADS = ['--import', './test/helpers/shared-rsa-keys.mjs', '--import', './test/helpers/compile-cache.mjs'] as const;

/** Node.js options for a process a test starts from the sources: TypeScript through tsx, and the preloads. */
const TEST_PROCESS_IMPORTS = ['--import', 'tsx', ...PRELOADS] as const;

/** The newest modification time of a file under `dir` whose name ends with `suffix`, 0 when there is none. */
function newestModified(dir: string, suffix: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith(suffix)) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

let compiledIsCurrent: boolean | undefined;

/** Whether dist/ (`npm run build`) holds every source file's latest version: nothing under src/ changed since. */
function compiledBuildIsCurrent(): boolean {
  compiledIsCurrent ??= existsSync(join('dist', 'src')) && newestModified('src', '.ts') <= newestModified(join('dist', 'src'), '.js');
  return compiledIsCurrent;
}

/**
 * Node.js arguments that start the tool (`src/main.ts`) or the CLI (`src/cli/index.ts`) in a process of its own,
 * with the shared key pairs and the compile cache: from the compiled build when it is current (CI builds before it tests; such a process
 * starts on about a third less CPU than through tsx), else from the sources through tsx. Either way the code is
 * what src/ holds now.
 */
export function entryArgs(entry: 'src/main.ts' | 'src/cli/index.ts'): string[] {
  return compiledBuildIsCurrent() ? [...PRELOADS, join('dist', entry.replace(/\.ts$/, '.js'))] : [...TEST_PROCESS_IMPORTS, entry];
}
