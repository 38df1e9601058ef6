// One text order for everything that must print the same bytes everywhere: UTF-16 code units, not a locale.

/** Code-unit order: the same on every machine and Node version, unlike `localeCompare`. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
