import type { NamingText } from './ports.js';

/**
 * What the domain answers when it will not do something: a `code` a presenter can switch on (to grey
 * out a row, pick a wording or an inline error) and the `message` people read. `field` names the form
 * input the refusal is about, where there is one, so a modal can show it inline.
 */
export interface Refused<Code extends string = string, Message extends NamingText = string> {
  ok: false;
  code: Code;
  message: Message;
  field?: string;
}

/** A form's errors, field by field, as a modal shows them inline. */
export type FormErrors<Field extends string> = Partial<Record<Field, string>>;

/** A form refused field by field: `message` is the first error, for answers that show one line. */
export interface FormRefused<Field extends string> extends Refused<'invalid_input'> {
  field: Field;
  errors: FormErrors<Field>;
}

export function refused<Code extends string, Message extends NamingText = string>(
  code: Code,
  message: Message,
  field?: string,
): Refused<Code, Message> {
  return field === undefined ? { ok: false, code, message } : { ok: false, code, message, field };
}

/** The refusal of a form with at least one error. */
export function formRefused<Field extends string>(errors: FormErrors<Field>): FormRefused<Field> {
  const [field, message] =
    Object.entries(errors).find((entry): entry is [Field, string] => entry[1] !== undefined) ?? [];
  if (field === undefined || message === undefined) throw new Error('formRefused needs at least one error');
  return { ok: false, code: 'invalid_input', message, field, errors };
}
