/**
 * A link's own questions to its buyer (`custom_fields`: "table number", "student id"), asked on our page before
 * the buyer goes on to the PSP, answered on the payment (docs/checkout.md#custom-fields).
 */
export const MAX_CUSTOM_FIELDS = 3;
export const CUSTOM_FIELD_TYPES = ['text', 'numeric', 'dropdown'] as const;
export type CustomFieldType = (typeof CUSTOM_FIELD_TYPES)[number];

export const MAX_CUSTOM_FIELD_KEY_LENGTH = 40;
export const MAX_CUSTOM_FIELD_LABEL_LENGTH = 50;
/** The longest answer to a text or numeric field. */
export const MAX_CUSTOM_FIELD_ANSWER_LENGTH = 255;
export const MAX_DROPDOWN_OPTIONS = 200;
export const MAX_DROPDOWN_VALUE_LENGTH = 100;

export interface LengthBounds {
  minimum_length?: number;
  maximum_length?: number;
}

export interface DropdownOption {
  label: string;
  value: string;
}

interface CustomFieldCommon {
  /** The merchant's name for the answer, unique on the link (`[A-Za-z0-9_]`). */
  key: string;
  /** What the buyer reads. */
  label: string;
  optional: boolean;
}

export type CustomField = CustomFieldCommon &
  (
    | { type: 'text'; text: LengthBounds | null }
    | { type: 'numeric'; numeric: LengthBounds | null }
    | { type: 'dropdown'; dropdown: { options: DropdownOption[] } }
  );

/** A custom field as the merchant sends it (validated: a dropdown has its options, no type has another's). */
export interface CustomFieldInput extends Omit<CustomFieldCommon, 'optional'> {
  type: CustomFieldType;
  optional?: boolean | undefined;
  text?: LengthBounds | null | undefined;
  numeric?: LengthBounds | null | undefined;
  dropdown?: { options: DropdownOption[] } | undefined;
}

export function customFieldOf(input: CustomFieldInput): CustomField {
  const common = { key: input.key, label: input.label, optional: input.optional ?? false };
  switch (input.type) {
    case 'text':
      return { ...common, type: 'text', text: input.text ?? null };
    case 'numeric':
      return { ...common, type: 'numeric', numeric: input.numeric ?? null };
    case 'dropdown':
      return { ...common, type: 'dropdown', dropdown: { options: input.dropdown?.options ?? [] } };
  }
}

/** A buyer's answer to one of the link's `custom_fields`, as the payment records it. */
export interface CustomFieldAnswer {
  key: string;
  /** The field's label when the buyer answered it. */
  label: string;
  type: CustomFieldType;
  /** As typed (trimmed); a dropdown's option `value`. */
  value: string;
}
