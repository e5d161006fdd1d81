const dateTime = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});
const dateOnly = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: '2-digit' });
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

export function formatDateTime(iso: string): string {
  return dateTime.format(new Date(iso));
}

export function formatDate(iso: string): string {
  return dateOnly.format(new Date(iso));
}

/** "3 minutes ago", "in 11 hours". */
export function formatRelative(iso: string, now = Date.now()): string {
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 45) return relative.format(0, 'second') === 'now' ? 'just now' : relative.format(seconds, 'second');
  if (abs < 2700) return relative.format(Math.round(seconds / 60), 'minute');
  if (abs < 64800) return relative.format(Math.round(seconds / 3600), 'hour');
  return relative.format(Math.round(seconds / 86400), 'day');
}

export function formatDuration(totalSeconds: number): string {
  const d = Math.floor(totalSeconds / 86400);
  const h = Math.floor((totalSeconds % 86400) / 3600);
  const m = Math.floor((totalSeconds % 3600) / 60);
  const s = totalSeconds % 60;
  if (d) return `${d}d ${h}h`;
  if (h) return `${h}h ${m}m`;
  if (m) return `${m}m ${s}s`;
  return `${s}s`;
}

/** SHA256:abcdef…uvwxyz, for tables; the full print goes in a title. */
export function shortFingerprint(fingerprint: string): string {
  const [algo, hash = ''] = fingerprint.split(':');
  return hash.length > 16 ? `${algo}:${hash.slice(0, 8)}…${hash.slice(-6)}` : fingerprint;
}

/** An <input type="datetime-local"> value (local time) from an ISO time, and back. */
export function isoToLocalInput(iso: string | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

export function localInputToIso(value: string): string | undefined {
  if (!value) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

const BYTE_UNITS = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'];

/** 1536 -> "1.5 KB" (powers of 1024, the way free(1) and df -h count). */
export function formatBytes(bytes: number, digits = 1): string {
  if (!Number.isFinite(bytes)) return '—';
  let value = Math.abs(bytes);
  let unit = 0;
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const text = unit === 0 ? String(Math.round(value)) : value.toFixed(value >= 100 ? 0 : digits);
  return `${bytes < 0 ? '-' : ''}${text} ${BYTE_UNITS[unit]}`;
}

/** Bytes per second, e.g. "12.4 KB/s". */
export function formatRate(bytesPerSecond: number): string {
  return `${formatBytes(bytesPerSecond)}/s`;
}

export function formatPercent(value: number, digits = 1): string {
  return Number.isFinite(value) ? `${value.toFixed(digits)} %` : '—';
}

/** An os-release ID ("debian", "ubuntu") as a name; names that already have capitals stay as they are. */
export function distributionName(id: string): string {
  return id === id.toLowerCase() ? id.charAt(0).toUpperCase() + id.slice(1) : id;
}

/** "Debian 12", "Ubuntu 24.04", or the kernel family when no distribution is known. */
export function formatOs(attributes: { os: string | null; distribution: string | null; distribution_version: string | null }): string {
  const distro = [attributes.distribution ? distributionName(attributes.distribution) : null, attributes.distribution_version].filter(Boolean).join(' ');
  return distro || (attributes.os ? distributionName(attributes.os) : '—');
}

const timeOnly = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const dayAndTime = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });

/** "15:00" today, "Mar 4, 15:00" on another day. */
export function formatShortTime(iso: string, now = Date.now()): string {
  const date = new Date(iso);
  return date.toDateString() === new Date(now).toDateString() ? timeOnly.format(date) : dayAndTime.format(date);
}
