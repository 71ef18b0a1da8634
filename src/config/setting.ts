// What one setting is, and the helpers the tables (server.ts, features.ts) write them with: each
// setting once, with the Config field it fills, its check, its default and its documentation (its
// row in docs/settings.md, written there by `npm run docs:settings`).
import { z } from "zod";

/** The setting's row in docs/settings.md (Markdown, one line each). */
export interface SettingDoc {
  /** What it does. */
  readonly meaning: string;
  /** What applies when it is unset or empty. */
  readonly default: string;
  /** The values accepted (or the range). */
  readonly values: string;
}

/** The raw value (undefined when unset or empty) → the value of the field; its messages are the errors. */
export type SettingSchema<T = unknown> = z.ZodType<T, string | undefined>;

export interface Setting<F extends string = string, S extends SettingSchema = SettingSchema> {
  /**
   * The Config field it fills. A dotted one ("solveLimits.perAddress") is inside a group that
   * config.ts makes (with the settings that decide it).
   */
  readonly field: F;
  readonly schema: S;
  readonly doc: SettingDoc;
}

/** A group of settings: one table of docs/settings.md (between its markers). */
export interface Area<T extends Record<string, Setting> = Record<string, Setting>> {
  /** The name of its markers in docs/settings.md. */
  readonly id: string;
  /** The heading of the table's last column. */
  readonly valuesHeading: string;
  /** Environment variable → setting, in the order of the table. */
  readonly settings: T;
  /**
   * Settings named by a pattern ("UPSTREAM_<ID>_KIND"): rows of the table after the others, read
   * by a reader of their own at config load (config/upstreams.ts), never by the table's schema.
   */
  readonly patterns?: Record<string, Setting>;
}

export const area = <T extends Record<string, Setting>>(
  id: string,
  valuesHeading: string,
  settings: T,
  patterns?: Record<string, Setting>,
): Area<T> => ({ id, valuesHeading, settings, ...(patterns ? { patterns } : {}) });

const code = (v: unknown) => `\`${String(v)}\``;
const withNote = (text: string, note: string | undefined) =>
  note === undefined ? text : /^[;,]/.test(note) ? text + note : `${text} ${note}`;
/** 86400 → "86,400". */
const count = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");

/**
 * A setting with its own schema. Its documented default, when not given, is what the schema
 * makes of an unset value (a setting without one must say what unset means).
 */
export function setting<F extends string, S extends SettingSchema>(
  field: F,
  schema: S,
  doc: { meaning: string; default?: string; values: string },
): Setting<F, S> {
  const unset = schema.safeParse(undefined);
  const fallback = unset.success && unset.data !== undefined ? code(unset.data) : undefined;
  const documented = doc.default ?? fallback;
  if (documented === undefined) throw new Error(`the setting for ${field} must say what applies when it is unset`);
  return { field, schema, doc: { meaning: doc.meaning, default: documented, values: doc.values } };
}

/** A whole number: digits only, in [min, max], never clamped. */
export const intIn = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, `must be a whole number from ${min} to ${max}`)
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));

/** A whole number setting; the notes follow the generated default and range in the docs. */
export function wholeNumber<F extends string>(
  field: F,
  min: number,
  max: number,
  byDefault: number,
  doc: { meaning: string; defaultNote?: string; valuesNote?: string },
): Setting<F, SettingSchema<number>> {
  return setting(field, intIn(min, max).default(byDefault), {
    meaning: doc.meaning,
    default: withNote(code(byDefault), doc.defaultNote),
    values: withNote(`${count(min)}–${count(max)}`, doc.valuesNote),
  });
}

/** One of a few words; labels say what a word stands for in the docs. */
export function oneOf<F extends string, const O extends readonly [string, ...string[]]>(
  field: F,
  options: O,
  byDefault: O[number],
  doc: { meaning: string; labels?: Partial<Record<O[number], string>>; valuesNote?: string; message?: string },
): Setting<F, SettingSchema<O[number]>> {
  const words = doc.message === undefined ? z.enum(options) : z.enum(options, doc.message);
  const labelled = options.map((o: O[number]) => {
    const label = doc.labels?.[o];
    return label ? `${code(o)} (${label})` : code(o);
  });
  return setting(field, words.default(byDefault as never) as SettingSchema<O[number]>, {
    meaning: doc.meaning,
    values: withNote(labelled.join(", "), doc.valuesNote),
  });
}

/** `on` or `off`, read as true or false. */
export function onOff<F extends string>(
  field: F,
  byDefault: "on" | "off",
  doc: { meaning: string; valuesNote?: string },
): Setting<F, SettingSchema<boolean>> {
  const schema = z
    .enum(["on", "off"], "must be on or off")
    .default(byDefault)
    .transform((v) => v === "on");
  return setting(field, schema, {
    meaning: doc.meaning,
    default: code(byDefault),
    values: withNote("`on`, `off`", doc.valuesNote),
  });
}

/** An absolute http(s) URL without query or fragment, its trailing slashes removed. */
export const httpUrl = z
  .string()
  .refine((s) => {
    try {
      const u = new URL(s);
      return (u.protocol === "http:" || u.protocol === "https:") && !u.search && !u.hash;
    } catch {
      return false;
    }
  }, "must be an absolute http(s) URL without query or fragment")
  .transform((s) => s.replace(/\/+$/, ""));
