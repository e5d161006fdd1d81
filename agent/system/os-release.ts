// Distribution name and version from os-release(5), the file every current Linux
// distribution ships (Debian/Ubuntu, RHEL family, Alpine, Arch, SUSE).
import { readFileSync } from 'node:fs';

export const OS_RELEASE_FILES = ['/etc/os-release', '/usr/lib/os-release'];

/** Parses KEY=value lines, with the shell-style quoting and backslash escapes os-release allows. */
export function parseOsRelease(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^\s*([A-Z0-9_]+)=(.*)$/.exec(line);
    if (!m) continue;
    let value = m[2]!.trim();
    const quote = value[0];
    if ((quote === '"' || quote === "'") && value.endsWith(quote) && value.length >= 2) {
      value = value.slice(1, -1);
      if (quote === '"') value = value.replace(/\\([\\"$`])/g, '$1');
    }
    out[m[1]!] = value;
  }
  return out;
}

export function readOsRelease(files = OS_RELEASE_FILES): Record<string, string> | null {
  for (const file of files) {
    try {
      return parseOsRelease(readFileSync(file, 'utf8'));
    } catch {
      // try the next location
    }
  }
  return null;
}
