/** Joins class names, skipping falsy ones. (No tailwind-merge: components order their classes so overrides come last.) */
export function cn(...classes: Array<string | false | null | undefined>): string {
  return classes.filter(Boolean).join(' ');
}
