export type ThemeMode = 'light' | 'dark';

const STORAGE_KEY = 'corral.theme';

/** Light or dark; follows the system until the operator picks one, then remembers it. */
export class Theme {
  mode = $state<ThemeMode>('light');
  /** True once the operator chose, so system changes no longer apply. */
  chosen = $state(false);

  constructor() {
    const saved = read();
    const media = matchMedia('(prefers-color-scheme: dark)');
    this.chosen = saved !== null;
    this.mode = saved ?? (media.matches ? 'dark' : 'light');
    media.addEventListener('change', (event) => {
      if (!this.chosen) this.apply(event.matches ? 'dark' : 'light');
    });
    this.apply(this.mode);
  }

  toggle(): void {
    this.set(this.mode === 'dark' ? 'light' : 'dark');
  }

  set(mode: ThemeMode): void {
    this.chosen = true;
    try {
      localStorage.setItem(STORAGE_KEY, mode);
    } catch {
      // not remembered, still applied
    }
    this.apply(mode);
  }

  private apply(mode: ThemeMode): void {
    this.mode = mode;
    document.documentElement.dataset.theme = mode;
    document.documentElement.style.colorScheme = mode;
  }
}

function read(): ThemeMode | null {
  try {
    const value = localStorage.getItem(STORAGE_KEY);
    return value === 'light' || value === 'dark' ? value : null;
  } catch {
    return null;
  }
}

export const theme = new Theme();
