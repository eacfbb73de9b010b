import { EXAM_SETTINGS_OFF, type BehaviorSettings, type ExamSettings } from '../../../proctoring/contract.js';
import { english } from '../../../proctoring/english.js';
import { satisfyRequirements, type AppliedChange } from '../prerequisites.js';

/**
 * Security presets: one click fills the exam settings, which stay editable. Each preset names what it
 * chooses; what those choices need (prerequisites) is switched on by satisfyRequirements, as in the
 * form, so the page can say why (e.g. full-screen removal turns on "Close other tabs").
 */
export interface SecurityPreset {
  id: string;
  /** Name and description in English, from the settings catalog (`settings:presets.security.<id>`): pages use securityPresetText. */
  label: string;
  description: string;
  /** The chosen settings, over all-off. */
  choices: Partial<ExamSettings>;
  behavior?: BehaviorSettings;
}

const STRICT_LOCKDOWN: Partial<ExamSettings> = {
  record_video: true,
  record_audio: true,
  record_screen: true,
  record_web_traffic: true,
  record_desk: 1,
  verify_audio: true,
  verify_desktop: true,
  verify_signature: true,
  full_screen: 3,
  disable_clipboard: true,
  disable_printing: true,
  block_downloads: true,
  clear_cache: true,
  disable_right_click: true,
  disable_extensions: true,
};

export const SECURITY_PRESETS: readonly SecurityPreset[] = [
  {
    id: 'record-only',
    label: english('settings:presets.security.record-only.name'),
    description: english('settings:presets.security.record-only.description'),
    choices: { record_video: true, record_audio: true, record_screen: true, verify_video: true, verify_audio: true, verify_desktop: true },
  },
  {
    id: 'standard',
    label: english('settings:presets.security.standard.name'),
    description: english('settings:presets.security.standard.description'),
    choices: {
      record_video: true,
      record_audio: true,
      record_screen: true,
      record_desk: 2,
      verify_signature: true,
      disable_clipboard: true,
      disable_printing: true,
      block_downloads: true,
      disable_right_click: true,
      tabs: 1,
    },
  },
  {
    id: 'strict-lockdown',
    label: english('settings:presets.security.strict-lockdown.name'),
    description: english('settings:presets.security.strict-lockdown.description'),
    choices: STRICT_LOCKDOWN,
    behavior: {
      frame_metrics: { navigating_away: 5, keystrokes: 2, copy_paste: 4, browser_resize: 3, audio_levels: 3, head_movement: 3, multiple_faces: 5, leaving_room: 4 },
    },
  },
  {
    id: 'high-stakes-id',
    label: english('settings:presets.security.high-stakes-id.name'),
    description: english('settings:presets.security.high-stakes-id.description'),
    choices: {
      ...STRICT_LOCKDOWN,
      verify_id: 2,
      full_screen: 2,
      live_proctor: true,
      advanced_program_detection: true,
      advanced_hardware_detection: true,
      advanced_vm_detection: true,
      strict_apps_validation: 1,
    },
    behavior: {
      frame_metrics: { navigating_away: 5, keystrokes: 3, copy_paste: 5, browser_resize: 3, audio_levels: 4, head_movement: 4, multiple_faces: 5, leaving_room: 5 },
    },
  },
];

/** The preset's name and description in the reader's words (`t`). */
export function securityPresetText(t: (key: string) => string, preset: Pick<SecurityPreset, 'id'>): { label: string; description: string } {
  return { label: t(`settings:presets.security.${preset.id}.name`), description: t(`settings:presets.security.${preset.id}.description`) };
}

export function securityPreset(id: string | undefined): SecurityPreset | undefined {
  return SECURITY_PRESETS.find((preset) => preset.id === id);
}

/** The preset's full exam_settings (all 30 members), with what its choices need switched on. */
export function applySecurityPreset(preset: SecurityPreset): { exam_settings: ExamSettings; changes: AppliedChange[] } {
  const { settings, changes } = satisfyRequirements<ExamSettings>({
    ...EXAM_SETTINGS_OFF,
    allowed_macos_apps: [],
    allowed_windows_apps: [],
    ...preset.choices,
  });
  return { exam_settings: settings, changes };
}
