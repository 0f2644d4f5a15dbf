/** The shared look of text fields (Input, Textarea, the Select trigger). */
export const fieldClasses =
  'w-full rounded-md border border-border bg-field px-3 text-base text-fg placeholder:text-muted sm:text-sm ' +
  'focus-visible:outline-2 focus-visible:outline-offset-0 focus-visible:outline-blurple ' +
  'disabled:cursor-not-allowed disabled:opacity-50 aria-invalid:border-danger';
