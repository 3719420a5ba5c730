/**
 * Every UI string is in both catalogs, and no JSX text is left outside them.
 *
 * - The English and Chinese catalogs have the same keys, none empty, with the same {{placeholders}}.
 * - Every key the code asks for with t('…') exists in both catalogs.
 * - No .tsx file (tests aside) renders a literal with letters as JSX text or as a user-facing attribute
 *   (aria-label, title, placeholder, alt, label): such a string would show in English to a Chinese reader.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import en from '../locales/en.json';
import zhCN from '../locales/zh-CN.json';
import { RANGE_PRESETS } from '../dateRange';
import { WEEKDAYS } from '../pages/HourOfWeekHeatmap';
import { THEMES } from '../theme';
import { i18n, LABEL_KEYS, UI_LANGUAGES } from './index';
// Imported for their label maps, which register the keys they read.
import '../api/cloudChoices';
import '../api/roles';
import '../components/SyncProgress';
import '../format';
import '../pages/settings/ApiKeysTab';
import '../pages/recommendations/automation';
import '../pages/recommendations/labels';
import '../phases';
import '../pages/reports/DigestForm';
import '../pages/settings/AlertHistorySection';
import '../pages/settings/AlertRulesSection';
import '../pages/settings/RecommendationsTab';

const SRC = join(__dirname, '..');

/** Text that is the same in every language: names, units and symbols. */
const ALLOWED_LITERALS = new Set(['GPU Ledger', 'SecretId', 'SecretKey', 'GPU', 'https', 'http', 'AKID…']);

type Catalog = { [key: string]: string | Catalog };

function flatten(catalog: Catalog, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(catalog)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') out.set(path, value);
    else for (const [k, v] of flatten(value, path)) out.set(k, v);
  }
  return out;
}

function sourceFiles(dir: string, ext: RegExp): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path, ext));
    else if (ext.test(name) && !/\.test\.tsx?$/.test(name) && !name.endsWith('.gen.ts') && !path.includes(`${join('src', 'test')}`))
      out.push(path);
  }
  return out;
}

const placeholders = (text: string) => [...text.matchAll(/\{\{\s*([\w.]+)/g)].map((m) => m[1]).sort();
/** i18next plural forms: "items_one", "items_other" are asked for as "items". */
const baseKey = (key: string) => key.replace(/_(zero|one|two|few|many|other)$/, '');

const enKeys = flatten(en as Catalog);
const zhKeys = flatten(zhCN as Catalog);

describe('the catalogs', () => {
  it('have the same keys in English and Chinese', () => {
    const enBase = new Set([...enKeys.keys()].map(baseKey));
    const zhBase = new Set([...zhKeys.keys()].map(baseKey));
    expect([...enBase].filter((k) => !zhBase.has(k))).toEqual([]);
    expect([...zhBase].filter((k) => !enBase.has(k))).toEqual([]);
  });

  it('have no empty string and the same placeholders in both languages', () => {
    const problems: string[] = [];
    for (const [key, text] of enKeys) {
      if (!text.trim()) problems.push(`en ${key} is empty`);
      const zhText = zhKeys.get(key) ?? zhKeys.get(`${baseKey(key)}_other`);
      if (zhText === undefined) continue;
      if (!zhText.trim()) problems.push(`zh-CN ${key} is empty`);
      const a = [...new Set(placeholders(text))];
      const b = [...new Set(placeholders(zhText))];
      if (a.join() !== b.join()) problems.push(`${key}: {{${a}}} vs {{${b}}}`);
    }
    expect(problems).toEqual([]);
  });

  it('hold every key the code asks for', () => {
    const known = new Set([...enKeys.keys()].map(baseKey));
    const knownZh = new Set([...zhKeys.keys()].map(baseKey));
    const missing: string[] = [];
    for (const file of sourceFiles(SRC, /\.tsx?$/)) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/\bt\(\s*'([\w.-]+)'/g)) {
        const key = m[1]!;
        if (!known.has(key) || !knownZh.has(key)) missing.push(`${relative(SRC, file)}: ${key}`);
      }
    }
    expect(missing).toEqual([]);
  });
});

/** Attributes and the project's component props whose value is shown to (or read out for) the user. */
const USER_FACING_ATTRIBUTES = new Set([
  'aria-label',
  'title',
  'placeholder',
  'alt',
  'label',
  'legend',
  'hint',
  'detail',
  'question',
  'confirmLabel',
  'ariaLabel',
  'submitLabel',
  'submittingLabel',
  'loadingLabel',
  'emptyText',
  'what',
]);

/** The literal text of a string or template literal (placeholders dropped), or null for anything else. */
function literalText(node: ts.Node): string | null {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) return [node.head.text, ...node.templateSpans.map((span) => span.literal.text)].join(' ');
  return null;
}

function untranslatedIn(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const found: string[] = [];
  const report = (node: ts.Node, text: string) => {
    const value = text.replace(/\s+/g, ' ').trim();
    if (!/\p{L}/u.test(value) || ALLOWED_LITERALS.has(value)) return;
    const { line } = source.getLineAndCharacterOfPosition(node.getStart());
    found.push(`${relative(SRC, file)}:${line + 1}: ${value}`);
  };
  const visit = (node: ts.Node) => {
    if (ts.isJsxText(node)) report(node, node.text);
    else if (ts.isJsxAttribute(node) && node.initializer) {
      const name = node.name.getText(source);
      if (USER_FACING_ATTRIBUTES.has(name)) {
        const init = node.initializer;
        const text = ts.isJsxExpression(init) ? init.expression && literalText(init.expression) : literalText(init);
        if (text) report(init, text);
      }
    } else if (ts.isJsxExpression(node) && node.expression && ts.isJsxElement(node.parent)) {
      // {'text'} or {`text ${x}`} as a child; and both branches of {cond ? 'a' : 'b'}.
      const branches = ts.isConditionalExpression(node.expression)
        ? [node.expression.whenTrue, node.expression.whenFalse]
        : [node.expression];
      for (const branch of branches) {
        const text = literalText(branch);
        if (text) report(node, text);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Keys the code builds from a value (`t(`prefix.${value}`)`), which the t('…') scan cannot see. */
const BUILT_KEYS = [
  ...RANGE_PRESETS.map((preset) => `dateRange.preset.${preset}`),
  ...['invalid', 'order', 'too-long'].map((problem) => `dateRange.problem.${problem}`),
  ...WEEKDAYS.map((day) => `weekday.${day}`),
  ...['waiting', 'running', 'retrying', 'done', 'failed'].map((phase) => `syncProgress.phase.${phase}`),
  ...UI_LANGUAGES.map((language) => `language.${language}`),
  ...THEMES.map((theme) => `shell.theme${theme.charAt(0).toUpperCase()}${theme.slice(1)}`),
  ...['accepted', 'dismissed', 'snoozed', 'resolved'].map((status) => `recommendations.empty.body.${status}`),
];

describe('keys built from values', () => {
  it('are in both catalogs, for every value and every label map', () => {
    expect(LABEL_KEYS.length).toBeGreaterThanOrEqual(50); // The label maps above registered their keys.
    const missing = [...LABEL_KEYS, ...BUILT_KEYS].flatMap((key) =>
      UI_LANGUAGES.filter((lng) => !i18n.exists(key, { lng, fallbackLng: false })).map((lng) => `${lng}: ${key}`),
    );
    expect(missing).toEqual([]);
  });
});

describe('the components', () => {
  it('render no text that is not in the catalogs', () => {
    const found = sourceFiles(SRC, /\.tsx$/).flatMap(untranslatedIn);
    expect(found).toEqual([]);
  });
});
