/**
 * What the start page of a framed launch says: derived from the exam's settings, the launch and the kind of
 * session it opens. Pure: the page (views/launch/start.ejs) turns the keys into the student's language.
 */
import type { ExamSettingsDocument } from '../exams/settings/document.js';

/** The Launch API endpoint a start page opens. */
export type StartEndpoint = 'candidate' | 'reviewer' | 'live' | 'launchpad';

/** What is recorded during the exam (keys under `student:start.recorded`). */
export type RecordedItem = 'camera' | 'microphone' | 'screen' | 'webTraffic';
/** What is checked before or during the exam (keys under `student:start.checked`). */
export type CheckedItem = 'cameraCheck' | 'microphoneCheck' | 'screenCheck' | 'idAutomatic' | 'idPerson' | 'deskAtStart' | 'deskPeriodic' | 'liveProctor' | 'signature' | 'oneScreen' | 'closeTabs' | 'fullScreen';
/** What the student needs on their computer (keys under `student:start.needed`). */
export type NeededItem = 'extension' | 'webcam' | 'microphone' | 'companionApp';

/** Where the student goes when the exam ends (keys under `student:start.after`). */
export type AfterExam = 'lms' | 'message' | 'url';

export interface CandidateStart {
  endpoint: 'candidate';
  examTitle: string;
  courseTitle?: string;
  practice: boolean;
  /** Exempted from proctoring (an accommodation): the button opens the quiz itself, nothing is recorded or checked. */
  exempt: boolean;
  /** The instructor's own words to students, shown as typed (escaped, line breaks kept). */
  instructions?: string;
  recorded: RecordedItem[];
  checked: CheckedItem[];
  needed: NeededItem[];
  /** The proctoring service is sent the student's name (no roster to look it up from), not only a pseudonymous id. */
  nameSent: boolean;
  after: AfterExam;
  /** The course's address (launch_presentation.return_url), for the "back to the course" link. */
  returnUrl?: string;
}

export interface StaffStart {
  endpoint: 'reviewer' | 'live' | 'launchpad';
  examTitle?: string;
  courseTitle?: string;
}

export type StartPage = CandidateStart | StaffStart;

type ExamSettings = ExamSettingsDocument['exam_settings'];

/** The recorded, checked and needed items an exam's settings make, in reading order. */
export function checksOf(settings: ExamSettings): Pick<CandidateStart, 'recorded' | 'checked' | 'needed'> {
  const recorded: RecordedItem[] = [];
  const checked: CheckedItem[] = [];
  // The proctoring service's exam portal needs its browser extension for every proctored exam.
  const needed: NeededItem[] = ['extension'];
  if (settings.record_video) recorded.push('camera');
  if (settings.record_audio) recorded.push('microphone');
  if (settings.record_screen) recorded.push('screen');
  if (settings.record_web_traffic) recorded.push('webTraffic');
  if (settings.verify_video) checked.push('cameraCheck');
  if (settings.verify_audio) checked.push('microphoneCheck');
  if (settings.verify_desktop) checked.push('screenCheck');
  if (settings.verify_id === 1) checked.push('idAutomatic');
  if (settings.verify_id === 2) checked.push('idPerson');
  if (settings.record_desk === 2) checked.push('deskAtStart');
  if (settings.record_desk === 1) checked.push('deskPeriodic');
  if (settings.live_proctor) checked.push('liveProctor');
  if (settings.verify_signature) checked.push('signature');
  if (settings.one_screen) checked.push('oneScreen');
  if (settings.close_tabs) checked.push('closeTabs');
  if (settings.full_screen) checked.push('fullScreen');
  if (settings.record_video || settings.verify_video || settings.verify_id === 1 || settings.verify_id === 2) needed.push('webcam');
  if (settings.record_audio || settings.verify_audio) needed.push('microphone');
  if (settings.advanced_program_detection || settings.advanced_hardware_detection || settings.advanced_vm_detection) needed.push('companionApp');
  return { recorded, checked, needed };
}

export interface CandidateFacts {
  examTitle: string;
  courseTitle?: string;
  practice: boolean;
  exempt?: boolean;
  /** The settings this student's session runs with (the exam's, with the student's accommodation laid over them). */
  settings: ExamSettingsDocument;
  /** What requests.ts's displayNameFor sends (undefined: the pseudonymous id only). */
  displayName: string | undefined;
  returnUrl?: string;
  /** The instructor's own words to students (the exam's `instructions`); '' or absent: none. */
  instructions?: string;
}

export function candidateStart(facts: CandidateFacts): CandidateStart {
  return {
    endpoint: 'candidate',
    examTitle: facts.examTitle,
    courseTitle: facts.courseTitle,
    practice: facts.practice,
    exempt: facts.exempt === true,
    instructions: facts.instructions || undefined,
    ...(facts.exempt ? { recorded: [], checked: [], needed: [] } : checksOf(facts.settings.exam_settings)),
    nameSent: facts.displayName !== undefined,
    after: afterExam(facts.settings.tool?.redirect ?? 'lms', facts.returnUrl),
    returnUrl: facts.returnUrl && /^https?:\/\//i.test(facts.returnUrl) ? facts.returnUrl : undefined,
  };
}

/** As the return route forwards (return-routes.ts): back to the course only when the launch gave its address. */
function afterExam(mode: AfterExam, returnUrl: string | undefined): AfterExam {
  return mode === 'lms' && !(returnUrl && /^https?:\/\//i.test(returnUrl)) ? 'message' : mode;
}
