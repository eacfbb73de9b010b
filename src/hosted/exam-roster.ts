/**
 * The exam roster of a course (the launchpad's `exam_roster` endpoint). The Launch API leaves the format
 * open ("a list of exam names, exam tags, section ids and an optional roster URL"); the tool answers a
 * JSON array of objects with those four fields, documented in docs/hosted-endpoints.md. Pure.
 */

export interface ExamRosterEntry {
  exam_name: string;
  exam_tag: string;
  section_id: string;
  /** Absent when the LMS offers no Names and Roles for the course. */
  roster_url?: string;
}

export interface ExamRosterExam {
  title: string;
  resourceLinkId: string;
  /** Null while nobody has configured the exam: it is not proctored yet and not listed. */
  settings: unknown;
  /** Set when its stored settings need correcting: still an exam of the course, listed. */
  invalidSettings?: unknown;
}

export function buildExamRoster(input: {
  exams: readonly ExamRosterExam[];
  sectionId: string;
  examTagOf: (resourceLinkId: string) => string;
  rosterUrl?: string;
}): ExamRosterEntry[] {
  return input.exams
    .filter((exam) => (exam.settings !== null && exam.settings !== undefined) || exam.invalidSettings !== undefined)
    .map((exam) => ({
      exam_name: exam.title,
      exam_tag: input.examTagOf(exam.resourceLinkId),
      section_id: input.sectionId,
      ...(input.rosterUrl ? { roster_url: input.rosterUrl } : {}),
    }));
}
