import type { Request } from 'express';
import { z } from 'zod';
import { parseParams, pathParam } from '../http/request-input.js';

/** Paths under /lti (the session router). Pages are POSTed the session token as the hidden field `ltik`: never in a URL. */
export const LAUNCH_PATHS = {
  hub: (examId: string) => `/lti/hub/${encodeURIComponent(examId)}`,
  review: (examId: string) => `/lti/hub/${encodeURIComponent(examId)}/review`,
  live: (examId: string) => `/lti/hub/${encodeURIComponent(examId)}/live`,
  settings: (examId: string) => `/lti/exams/${encodeURIComponent(examId)}/settings`,
  startFromList: (examId: string) => `/lti/course/exams/${encodeURIComponent(examId)}/start`,
  /** The privacy notice's button: the student's launch goes on to the session (field `exam`: started from the course's list). */
  noticeContinue: '/lti/notice/continue',
  attemptsCsv: (examId: string) => `/lti/hub/${encodeURIComponent(examId)}/attempts.csv`,
  accommodation: (examId: string) => `/lti/hub/${encodeURIComponent(examId)}/accommodations/edit`,
  saveAccommodation: (examId: string) => `/lti/hub/${encodeURIComponent(examId)}/accommodations/save`,
  removeAccommodation: (examId: string) => `/lti/hub/${encodeURIComponent(examId)}/accommodations/remove`,
  nameProctor: (examId: string) => `/lti/hub/${encodeURIComponent(examId)}/proctors/name`,
  unnameProctor: (examId: string) => `/lti/hub/${encodeURIComponent(examId)}/proctors/remove`,
} as const;

const EXAM_PARAMS = z.object({ examId: pathParam });

/** The exam id of a `…/:examId…` path (the service answers an unknown or malformed one). */
export const examIdOf = (req: Request): string => parseParams(EXAM_PARAMS, req).examId;
