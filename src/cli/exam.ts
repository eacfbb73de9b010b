import type { Command } from 'commander';
import { recordChange } from './audit.js';
import type { WithDatabase } from './context.js';
import { err, fail, out, outRaw, readInput, writeOutput } from './io.js';
import { messageOf } from '../values.js';

/** `exam export|import`: exams as JSON. */
export function addExamCommands(program: Command, withDatabase: WithDatabase): void {
  const exam = program.command('exam').description('proctored exams as JSON: bulk setup, moving between courses, backups');

  exam
    .command('export')
    .description('print every exam (or those of one course) as JSON')
    .option('--course <contextId>', 'only the exams of this LTI context (course) id')
    .option('--issuer <url>', 'only the exams of this platform issuer')
    .option('--output <file>', 'write to this file instead of standard output')
    .action(async (options: { course?: string; issuer?: string; output?: string }) => {
      await withDatabase(async ({ db }) => {
        const { exportExams } = await import('../exams/transfer.js');
        const file = await exportExams(db, { contextId: options.course, issuer: options.issuer });
        const text = `${JSON.stringify(file, null, 2)}\n`;
        if (options.output) {
          await writeOutput(options.output, text);
          err(`Exported ${file.exams.length} exam${file.exams.length === 1 ? '' : 's'} to ${options.output}.`);
        } else {
          outRaw(text);
        }
      });
    });

  exam
    .command('import')
    .description('create or replace exams from an exported JSON file ("-" reads standard input); nothing is imported if any exam is refused')
    .argument('<file>', 'the JSON file')
    .action(async (path: string) => {
      const text = (await readInput(path)).toString('utf8');
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (error) {
        err(`Nothing was imported: ${path} is not valid JSON (${messageOf(error)}).`);
        fail();
        return;
      }
      await withDatabase(async ({ db }) => {
        const { importExams } = await import('../exams/transfer.js');
        const result = await importExams(db, parsed);
        if (result.ok) {
          await recordChange(db, { action: 'exam.import', target: path === '-' ? '(standard input)' : path, changes: [{ field: 'created', new: String(result.created) }, { field: 'updated', new: String(result.updated) }] });
          out(`Imported ${result.created + result.updated} exam${result.created + result.updated === 1 ? '' : 's'}: ${result.created} created, ${result.updated} updated.`);
          return;
        }
        err(`Nothing was imported.${result.message ? ` ${result.message}` : ''}`);
        for (const refusal of result.refusals) {
          err(`Exam #${refusal.index + 1} (${refusal.key}):`);
          for (const violation of refusal.violations) err(`  ${violation.path || '(exam)'}: ${violation.message}`);
        }
        fail();
      });
    });
}

