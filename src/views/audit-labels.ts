// The readable label of each type of audit record, in the page's language (catalog keys
// `audit.type.<type>`; a type the catalogs do not know yet shows as itself).
import { AUDIT_TYPES, type AuditType } from "../domain/audit.js";
import type { MessageKey } from "../i18n/index.js";
import type { Ui } from "./layout.js";

// Every type has its catalog key: a type added to AUDIT_TYPES without a label does not compile.
const labelled: `audit.type.${AuditType}` extends MessageKey ? true : never = true;
void labelled;

const KNOWN: readonly string[] = AUDIT_TYPES;

export function typeLabel(ui: Ui, type: string): string {
  return KNOWN.includes(type) ? ui.t(`audit.type.${type as AuditType}`) : type;
}
