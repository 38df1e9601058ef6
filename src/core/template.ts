// `{{var}}` templating for proposition claims. Unmatched variables stay as placeholders (format doc).

const VARIABLE = /\{\{\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}/g;

/** Replaces each `{{name}}` that has a value; leaves the others untouched. */
export function renderTemplate(
  template: string,
  variables: Readonly<Record<string, string | undefined>>,
): string {
  return template.replace(VARIABLE, (whole, name: string) => {
    const value = variables[name];
    return value === undefined ? whole : value;
  });
}

/** The variable names a template uses. */
export function templateVariables(template: string): string[] {
  return [...template.matchAll(VARIABLE)].map((m) => m[1]!);
}
