/** A labelled number input; empty or non-numeric text is reported as null. */
export function NumberField(props: {
  label: string;
  value: number | string | null | undefined;
  onChange(value: number | null, text: string): void;
  min?: number;
  max?: number;
  step?: number;
  placeholder?: string;
  testId?: string;
}) {
  return (
    <label>
      {props.label}
      <input
        type="number"
        data-testid={props.testId}
        min={props.min}
        max={props.max}
        step={props.step}
        placeholder={props.placeholder}
        value={props.value ?? ''}
        onChange={(event) => {
          const text = event.target.value;
          const value = Number(text);
          props.onChange(text === '' || !Number.isFinite(value) ? null : value, text);
        }}
      />
    </label>
  );
}
