// CodeMirror 6 for module YAML. Loaded on first use (its own chunk), like xterm.js.
// Colours come from the theme's CSS custom properties, so the editor follows light and dark.
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { yaml } from '@codemirror/lang-yaml';
import { bracketMatching, HighlightStyle, indentOnInput, syntaxHighlighting } from '@codemirror/language';
import { lintGutter, setDiagnostics, type Diagnostic } from '@codemirror/lint';
import { Compartment, EditorState } from '@codemirror/state';
import { drawSelection, EditorView, highlightActiveLine, highlightActiveLineGutter, keymap, lineNumbers } from '@codemirror/view';
import { tags as t } from '@lezer/highlight';

export interface LineMark {
  line: number;
  message: string;
}

export interface YamlEditorHandle {
  setText(text: string): void;
  setMarks(marks: LineMark[]): void;
  setReadOnly(readOnly: boolean): void;
  focus(): void;
  destroy(): void;
}

const theme = EditorView.theme({
  '&': { color: 'var(--text)', backgroundColor: 'var(--surface)', fontSize: '13px', height: '100%' },
  '.cm-scroller': { fontFamily: 'var(--font-mono)', lineHeight: '1.55' },
  '.cm-content': { caretColor: 'var(--text)' },
  '&.cm-focused': { outline: 'none' },
  '.cm-cursor, .cm-dropCursor': { borderLeftColor: 'var(--text)' },
  '&.cm-focused .cm-selectionBackground, .cm-selectionBackground, .cm-content ::selection': { backgroundColor: 'var(--accent-soft)' },
  '.cm-gutters': { backgroundColor: 'var(--surface-2)', color: 'var(--faint)', borderRight: '1px solid var(--border)' },
  '.cm-activeLine': { backgroundColor: 'color-mix(in srgb, var(--surface-hover) 60%, transparent)' },
  '.cm-activeLineGutter': { backgroundColor: 'var(--surface-hover)', color: 'var(--text-2)' },
  '.cm-lintRange-error': { backgroundImage: 'none', textDecoration: 'underline wavy var(--danger)', textUnderlineOffset: '3px' },
  '.cm-tooltip': { backgroundColor: 'var(--surface)', color: 'var(--text)', border: '1px solid var(--border-strong)', borderRadius: 'var(--radius-sm)' },
  '.cm-diagnostic-error': { borderLeftColor: 'var(--danger)' },
  '.cm-lint-marker': { width: '0.9em', height: '0.9em' },
});

const highlight = HighlightStyle.define([
  { tag: [t.propertyName, t.definition(t.propertyName)], color: 'var(--accent-text)' },
  { tag: [t.string, t.special(t.string)], color: 'var(--ok)' },
  { tag: [t.number, t.bool, t.null, t.atom], color: 'var(--warn)' },
  { tag: [t.comment, t.lineComment], color: 'var(--muted)', fontStyle: 'italic' },
  { tag: [t.keyword, t.meta, t.typeName, t.labelName], color: 'var(--chart-4)' },
  { tag: [t.punctuation, t.separator, t.squareBracket, t.brace], color: 'var(--text-2)' },
]);

export function createYamlEditor(
  parent: HTMLElement,
  options: { text: string; readOnly: boolean; label: string; onchange: (text: string) => void },
): YamlEditorHandle {
  const editable = new Compartment();
  const readOnlyState = (readOnly: boolean) => [EditorView.editable.of(!readOnly), EditorState.readOnly.of(readOnly)];
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: options.text,
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        highlightActiveLine(),
        drawSelection(),
        history(),
        indentOnInput(),
        bracketMatching(),
        EditorState.tabSize.of(2),
        keymap.of([indentWithTab, ...defaultKeymap, ...historyKeymap]),
        yaml(),
        syntaxHighlighting(highlight),
        lintGutter(),
        theme,
        editable.of(readOnlyState(options.readOnly)),
        EditorView.contentAttributes.of({ 'aria-label': options.label, 'data-testid': 'module-editor-content' }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) options.onchange(update.state.doc.toString());
        }),
      ],
    }),
  });

  return {
    setText(text) {
      if (text === view.state.doc.toString()) return;
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    },
    setMarks(marks) {
      const doc = view.state.doc;
      const diagnostics: Diagnostic[] = marks.map((m) => {
        const line = doc.line(Math.min(Math.max(1, m.line), doc.lines));
        // Mark the line's text without its indentation, so the underline sits under what is wrong.
        const indent = /^\s*/.exec(line.text)?.[0].length ?? 0;
        const from = Math.min(line.from + indent, line.to);
        return { from, to: line.to, severity: 'error', message: m.message };
      });
      view.dispatch(setDiagnostics(view.state, diagnostics));
    },
    setReadOnly(readOnly) {
      view.dispatch({ effects: editable.reconfigure(readOnlyState(readOnly)) });
    },
    focus() {
      view.focus();
    },
    destroy() {
      view.destroy();
    },
  };
}
