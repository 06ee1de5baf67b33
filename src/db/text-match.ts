/** Escapes LIKE wildcards (and the escape character) so that a search text matches literally. */
export const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** A lowercase 36-character UUID: a filter value that is not one cannot match a uuid column (and must not be cast). */
export const isUuid = (s: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(s);
