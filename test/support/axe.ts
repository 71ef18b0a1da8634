// axe-core in the browser suites: the violations on a page as it is now, in a colour scheme, and
// Tab until an element has the focus. axe is injected through the debugger (page.evaluate), as
// the pages' CSP forbids inline script.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

interface AxeViolation {
  id: string;
  help: string;
  nodes: { target: string[] }[];
}

/** Every WCAG 2.1 A/AA and best-practice rule. */
const ALL = { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] };

/**
 * The rules whose outcome depends on colours. The dark scheme changes only colours (the same
 * document, the stylesheet's dark values): every other rule gives in dark what it gave in light,
 * so in dark only these run (the walk through every page in both schemes: 19.4 s → 18.0 s alone).
 */
const COLOUR_RULES = { type: "rule", values: ["color-contrast", "link-in-text-block"] };

/**
 * axe-core's violations on the page as it is now, one line each (rule, help, the elements): every
 * rule when `scheme` is light (the default), the colour rules when it is dark. The caller has put
 * the page in that scheme (page.emulateMedia).
 */
export async function axeViolations(page: Page, scheme: "light" | "dark" = "light"): Promise<string[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(AXE);
  const found = await page.evaluate(
    (runOnly) =>
      (
        window as unknown as { axe: { run(ctx: Document, o: object): Promise<{ violations: AxeViolation[] }> } }
      ).axe.run(document, { runOnly }),
    scheme === "dark" ? COLOUR_RULES : ALL,
  );
  return found.violations.map((v) => `${v.id} (${v.help}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

/**
 * What a page does wrong as it is now, for a person: axe's violations in the light and the dark
 * scheme, and sideways scrolling at a phone's width (360 px); each line names `what`.
 */
export async function a11yProblems(page: Page, what: string): Promise<string[]> {
  const out: string[] = [];
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const v of await axeViolations(page, scheme)) out.push(`${what} [${scheme}]: ${v}`);
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 360, height: 740 });
  const wide = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  if (wide > 0) out.push(`${what}: scrolls ${wide} px sideways at 360 px`);
  await page.setViewportSize({ width: 1024, height: 800 });
  return out;
}

/** Presses Tab until the focused element matches selector (the keyboard's way there), at most `presses` times. */
export async function tabTo(page: Page, selector: string, presses = 200): Promise<void> {
  for (let i = 0; i < presses; i++) {
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
    await page.keyboard.press("Tab");
  }
  throw new Error(`Tab never reached ${selector}`);
}
