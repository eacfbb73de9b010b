/**
 * Human labels for every field of the Launch API requests, keyed by the path used in violations
 * (`exam_settings.full_screen`, `exam_settings.allowed_windows_apps.binary_name`: array indices left out).
 * The words are an instructor's, not the API's.
 */
export const FIELD_LABELS: Readonly<Record<string, string>> = {
  user_id: 'User id',
  attempt_id: 'Attempt id',
  expire: 'Link validity (seconds)',
  exam_tag: 'Exam tag',
  section_id: 'Section id',
  roster_url: 'Roster URL',
  domain: 'Exam domain',
  launch_url: 'Exam launch URL',
  exam_start: 'Exam start page pattern',
  exam_take: 'Exam pages pattern',
  exam_end: 'Exam end page pattern',
  pre_auth: 'Pre-authentication URL',
  post_auth: 'Post-authentication URL',
  pre_auth_bypass: 'Bypass pre-authentication',
  redirect_url: 'Return URL',
  redirect_settings: 'Return URLs',
  'redirect_settings.graceful_submission_url': 'Return URL after submitting',
  'redirect_settings.ungraceful_submission_url': 'Return URL after leaving the exam',
  display_name: 'Display name',
  extension_allowlist_url: 'Extension allowlist URL',
  exam_name: 'Exam name',
  exam_roster: 'Exam roster URL',
  type: 'Webhook type',
  version: 'Webhook version',
  client: 'Webhook receiver',
  'client.url': 'Webhook receiver URL',
  'client.key': 'Webhook receiver key',
  id: 'Subscription id',

  branding: 'Branding',
  'branding.primary_color': 'Primary colour',
  'branding.secondary_color': 'Secondary colour',
  'branding.logo_url': 'Logo URL',

  exam_settings: 'Exam settings',
  'exam_settings.record_video': 'Record video',
  'exam_settings.record_audio': 'Record audio',
  'exam_settings.record_screen': 'Record screen',
  'exam_settings.record_web_traffic': 'Record web traffic',
  'exam_settings.record_desk': 'Desk scan',
  'exam_settings.verify_video': 'Verify webcam',
  'exam_settings.verify_audio': 'Verify microphone',
  'exam_settings.verify_desktop': 'Verify screen recording',
  'exam_settings.verify_id': 'ID check',
  'exam_settings.verify_signature': 'Signed exam agreement',
  'exam_settings.full_screen': 'Full-screen removal',
  'exam_settings.disable_clipboard': 'Disable copy and paste',
  'exam_settings.tabs': 'New tabs',
  'exam_settings.close_tabs': 'Close other tabs',
  'exam_settings.one_screen': 'One screen only',
  'exam_settings.disable_printing': 'Disable printing',
  'exam_settings.block_downloads': 'Block downloads',
  'exam_settings.clear_cache': 'Clear cache after the exam',
  'exam_settings.disable_right_click': 'Disable right-click',
  'exam_settings.calculator': 'Calculator',
  'exam_settings.whiteboard': 'Whiteboard',
  'exam_settings.disable_extensions': 'Disable other browser extensions',
  'exam_settings.live_proctor': 'Live proctoring',
  'exam_settings.mobile': 'Allow mobile devices',
  'exam_settings.advanced_program_detection': 'Block other applications (companion app)',
  'exam_settings.advanced_hardware_detection': 'Log hardware changes (companion app)',
  'exam_settings.advanced_vm_detection': 'Block virtual machines (companion app)',
  'exam_settings.allowed_macos_apps': 'Allowed macOS apps',
  'exam_settings.allowed_windows_apps': 'Allowed Windows apps',
  'exam_settings.allowed_windows_apps.binary_name': 'Windows app file name',
  'exam_settings.allowed_windows_apps.product_name': 'Windows app product name',
  'exam_settings.allowed_windows_apps.company_name': 'Windows app company name',
  'exam_settings.strict_apps_validation': 'Strict check of allowed apps',

  behavior_settings: 'Behaviour settings',
  'behavior_settings.frame_metrics': 'Behaviour weights',
  'behavior_settings.frame_metrics.navigating_away': 'Weight: navigating away',
  'behavior_settings.frame_metrics.keystrokes': 'Weight: keystrokes',
  'behavior_settings.frame_metrics.copy_paste': 'Weight: copy and paste',
  'behavior_settings.frame_metrics.browser_resize': 'Weight: browser resizing',
  'behavior_settings.frame_metrics.audio_levels': 'Weight: audio levels',
  'behavior_settings.frame_metrics.head_movement': 'Weight: head movement',
  'behavior_settings.frame_metrics.multiple_faces': 'Weight: multiple faces',
  'behavior_settings.frame_metrics.leaving_room': 'Weight: leaving the room',
  'behavior_settings.exam_metrics': 'Highlighted metrics',
  'behavior_settings.exam_metrics.navigating_away': 'Highlight: navigating away',
  'behavior_settings.exam_metrics.keystrokes': 'Highlight: keystroke counts',
  'behavior_settings.exam_metrics.copy_paste': 'Highlight: copy and paste',
  'behavior_settings.exam_metrics.browser_resize': 'Highlight: browser resizing',
  'behavior_settings.exam_metrics.audio_levels': 'Highlight: audio activity',
  'behavior_settings.exam_metrics.head_movement': 'Highlight: looking away',
  'behavior_settings.exam_metrics.multiple_faces': 'Highlight: several faces',
  'behavior_settings.exam_metrics.mouse_movement': 'Highlight: little mouse movement',
  'behavior_settings.exam_metrics.scrolling': 'Highlight: little scrolling',
  'behavior_settings.exam_metrics.clicking': 'Highlight: little clicking',
  'behavior_settings.exam_metrics.exam_duration': 'Highlight: unusual exam duration',
  'behavior_settings.exam_metrics.start_time': 'Highlight: start time mismatch',
  'behavior_settings.exam_metrics.end_time': 'Highlight: end time mismatch',
  'behavior_settings.exam_metrics.exam_collusion': 'Highlight: exams on the same network',

  proctor_settings: 'Proctor permissions',
  'proctor_settings.break_allowed': 'Proctor may give a break',
  'proctor_settings.desk_scan_allowed': 'Proctor may start a desk scan',
  'proctor_settings.interrupt_allowed': 'Proctor may interrupt or resume',
  'proctor_settings.kickout_allowed': 'Proctor may remove a candidate',

  break_settings: 'Breaks',
  'break_settings.number': 'Number of breaks',
  'break_settings.duration': 'Break duration',
  'break_settings.cumulative': 'Break time shared between breaks',
  'break_settings.on_time_exceeded': 'When break time is exceeded',
  'break_settings.desk_scan_after_break': 'Desk scan after a break',
};

/** What each value of the integer settings means, for forms and messages. */
export const CHOICE_LABELS: Readonly<Record<string, Readonly<Record<number, string>>>> = {
  'exam_settings.record_desk': { 0: 'Off', 1: 'At start and periodically', 2: 'At start only' },
  'exam_settings.verify_id': { 0: 'Off', 1: 'Scanned automatically', 2: 'Reviewed by a person' },
  'exam_settings.full_screen': { 0: 'Off', 1: 'After 15 s away', 2: 'After 30 s away', 3: 'Instantly' },
  'exam_settings.tabs': { 0: 'Allowed', 1: 'No new tabs', 2: 'No new tabs except exam links' },
  'exam_settings.calculator': { 0: 'None', 1: 'Basic', 2: 'Scientific', 3: 'Graphing' },
  'exam_settings.strict_apps_validation': { 0: 'Off', 1: 'Default validation' },
  'break_settings.on_time_exceeded': { 0: 'Break may run over', 1: 'Candidate is removed' },
};

/** The label of a violation path; array indices are ignored and unknown paths fall back to the field name. */
export function fieldLabel(path: string): string {
  const key = labelKey(path);
  return FIELD_LABELS[key] ?? key.split('.').pop() ?? path;
}

/** `exam_settings.allowed_windows_apps.2.binary_name` → `exam_settings.allowed_windows_apps.binary_name`. */
export function labelKey(path: string): string {
  return path
    .split('.')
    .filter((part) => !/^\d+$/.test(part))
    .join('.');
}
