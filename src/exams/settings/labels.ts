import { settingLabel, type Translate } from '../../proctoring/labels.js';
import { toolSettingLabel } from '../tool-settings/registry.js';

/** The label of any path of an exam's settings in the reader's words: a tool-side setting's, else the Launch API document's. */
export const examSettingLabel = (t: Translate, path: string): string | undefined => toolSettingLabel(t, path) ?? settingLabel(t, path);
