import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const manifestSchema = z.object({ name: z.literal('proctor-lti'), version: z.string().regex(/^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]+)?$/) });

/**
 * The release of this build, read from package.json: it sits one folder above the sources when run with tsx
 * (src/) and two above the compiled output (dist/src/), so the nearest proctor-lti package.json upwards is it.
 */
function readVersion(): string {
  let folder = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const parsed = manifestSchema.safeParse(JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')));
      if (parsed.success) return parsed.data.version;
    } catch {
      // No package.json here (or an unreadable one): look further up.
    }
    const parent = dirname(folder);
    if (parent === folder) throw new Error('proctor-lti: package.json with the release version not found next to the program');
    folder = parent;
  }
}

/** The tool's version (package.json's `version`, semantic versioning), e.g. `0.2.0`. */
export const VERSION: string = readVersion();

/** What a build is made of, for the start-up log line, `--version` and the build-info metric. */
export interface BuildInfo {
  version: string;
  /** The Node.js release running it, e.g. `v24.11.0`. */
  node: string;
}

export function buildInfo(): BuildInfo {
  return { version: VERSION, node: process.version };
}
