import type { Violation } from './contract.js';
import { english } from './english.js';
import { choiceLabel, settingLabel, type Translate } from './labels.js';

/** The label of a settings path in the reader's words, or undefined for a path it does not know. */
export type LabelOf = (t: Translate, path: string) => string | undefined;

/**
 * A violation of a save, in the reader's language: its rule and parameters (contract.ts) with the field's
 * label (`labelOf`: the Launch API document's labels unless given), in the settings catalog's sentence
 * (`settings:validation.*`, `settings:rules.*`). A rule the catalog has no sentence for keeps the contract's
 * English sentence, which always exists.
 */
export function localizeViolation<R extends string>(t: Translate, violation: Violation<R>, labelOf: LabelOf = settingLabel): Violation<R> {
  const message = localizedMessage(t, violation, labelOf);
  return message === undefined ? violation : { ...violation, message };
}

function localizedMessage(t: Translate, v: Violation<string>, labelOf: LabelOf): string | undefined {
  const label = labelOf(t, v.path) ?? v.path.split('.').pop() ?? v.path;
  const min = v.params?.min;
  const max = v.params?.max;
  const say = (key: string, values: Readonly<Record<string, string | number>> = {}) => t(`settings:validation.${key}`, { label, ...values });
  switch (v.rule) {
    case 'required':
      return v.path === '' ? undefined : say('required');
    case 'integer':
      return say('integer');
    case 'type':
      if (v.path === '') return t('settings:validation.unreadable');
      return v.params?.expected === 'number' || v.params?.expected === 'int' ? say('integer') : say('type');
    case 'length':
      return min === undefined ? undefined : say('length', { min });
    case 'min_length':
      return min === undefined ? undefined : min === 1 ? say('notEmpty') : say('minLength', { min });
    case 'max_length':
      return max === undefined ? undefined : say('maxLength', { max });
    case 'range':
      if (min !== undefined && max !== undefined) return say('between', { min, max });
      if (min !== undefined) return say('atLeast', { min });
      return max === undefined ? undefined : say('atMost', { max });
    case 'max_items':
      return max === undefined ? undefined : say('maxItems', { max });
    case 'enum': {
      const values = typeof v.params?.values === 'string' ? v.params.values.split('|') : [];
      if (values.length === 0) return undefined;
      const options = values.map((value) => {
        const name = /^-?\d+$/.test(value) ? choiceLabel(t, v.path, Number(value)) : undefined;
        return name ? `${value} (${name})` : value;
      });
      return say('oneOf', { options: options.join(', ') });
    }
    case 'absolute_url':
      return say('absoluteUrl');
    case 'regex':
      return typeof v.params?.detail === 'string' ? say('pattern', { detail: v.params.detail }) : undefined;
    case 'unknown_field':
      return t('settings:validation.unknownField', { field: v.path });
    default:
      return english.has(`settings:rules.${v.rule}`) ? t(`settings:rules.${v.rule}`, v.params) : undefined;
  }
}
