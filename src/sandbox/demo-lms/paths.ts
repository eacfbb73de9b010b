import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The repository root seen from this module, whether it runs from src/ (tsx) or dist/src/ (compiled):
 * the nearest ancestor holding views/demo-lms.
 */
function repositoryRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'views', 'demo-lms'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('views/demo-lms not found above the demo LMS module');
    dir = parent;
  }
}

export function defaultPaths(): { viewsDir: string; publicDir: string } {
  const root = repositoryRoot();
  return { viewsDir: join(root, 'views', 'demo-lms'), publicDir: join(root, 'public', 'demo-lms') };
}
