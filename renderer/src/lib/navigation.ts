import type { IconName } from './icons.js';

/** One area of the product in the left navigation. */
export interface Area {
  path: string;
  label: string;
  icon: IconName;
  group: string;
  /** False while the area is still a "coming in a later release" page. */
  ready: boolean;
  summary: string;
  /** What the area will offer, for its placeholder page. */
  planned?: string[];
}

export const AREAS: Area[] = [
  {
    path: '/fleet',
    label: 'Fleet',
    icon: 'fleet',
    group: 'Fleet',
    ready: true,
    summary: 'Every machine whose agent has contacted this orchestrator, with its approval status, online state, attributes and live metrics.',
    planned: [
      'Approve, reject or revoke agents; remove rejected records',
      'Filter by status, online state or a tag selector such as role=web,env in (prod,staging)',
      'Attributes (OS, kernel, CPU, memory, disks, addresses) and metrics charts per agent',
      'Discover agents on the local network with one click',
    ],
  },
  {
    path: '/tags',
    label: 'Tags',
    icon: 'tag',
    group: 'Fleet',
    ready: true,
    summary: 'Key/value tags on agents: the vocabulary that selectors in assignments and maintenance windows match against.',
    planned: ['Every distinct tag key with its values and how many agents carry each', 'Set, replace and remove tags on one or many agents'],
  },
  {
    path: '/terminals',
    label: 'Terminals',
    icon: 'terminal',
    group: 'Fleet',
    ready: true,
    summary: 'Shells on your machines, right in the browser, with every session recorded.',
    planned: ['Open a terminal on an online agent', 'See and close open sessions', 'Download and replay session transcripts (asciicast v2)'],
  },
  {
    path: '/modules',
    label: 'Modules',
    icon: 'module',
    group: 'Desired state',
    ready: true,
    summary: 'Desired-state modules in YAML: files, directories, packages, services, users, groups and guarded scripts.',
    planned: ['Upload and edit modules in a YAML editor with validation that names the line', 'See which assignments and secrets a module uses'],
  },
  {
    path: '/assignments',
    label: 'Assignments',
    icon: 'assignment',
    group: 'Desired state',
    ready: true,
    summary: 'Bind an ordered set of modules to a tag selector, then plan or apply it on every matching agent.',
    planned: ['Create assignments, optionally only inside maintenance windows', 'Plan (dry run) and apply across the matching agents'],
  },
  {
    path: '/operations',
    label: 'Operations',
    icon: 'operation',
    group: 'Desired state',
    ready: true,
    summary: 'The history of every apply and plan, per agent, with per-resource results.',
    planned: ['Status, counts and timing of each operation', 'Diffs and captured script output per resource'],
  },
  {
    path: '/drift',
    label: 'Drift',
    icon: 'drift',
    group: 'Desired state',
    ready: true,
    summary: 'What changed on a machine since its last successful apply, found by scheduled and on-demand drift checks.',
    planned: ['Latest drift per agent, with expected and actual values', 'Run a drift check now'],
  },
  {
    path: '/secrets',
    label: 'Secrets',
    icon: 'secret',
    group: 'Desired state',
    ready: true,
    summary: 'Encrypted values for module templates ({{ secrets.NAME }}); only their metadata is ever shown.',
    planned: ['Create, rotate and delete secrets', 'See which modules use a secret'],
  },
  {
    path: '/notifications',
    label: 'Notifications',
    icon: 'bell',
    group: 'Alerts',
    ready: true,
    summary: 'Your inbox of fleet events, with a live unread count: agents going offline, failed applies, drift, operator changes.',
    planned: ['Mark one or all notifications read', 'Filter by severity and kind'],
  },
  {
    path: '/channels',
    label: 'Channels',
    icon: 'channel',
    group: 'Alerts',
    ready: true,
    summary: 'Where notifications are delivered: webhooks, Slack, Discord, ntfy, email and the desktop app.',
    planned: ['Filter each channel by event kind and minimum severity', 'Send a test notification'],
  },
  {
    path: '/maintenance',
    label: 'Maintenance',
    icon: 'maintenance',
    group: 'Alerts',
    ready: true,
    summary: 'Windows in which the selected agents may change and their alerts stay quiet.',
    planned: ['Schedule windows for a selector', 'End a window early'],
  },
  {
    path: '/operators',
    label: 'Operators',
    icon: 'operators',
    group: 'Administration',
    ready: true,
    summary: 'People and tools that may use this orchestrator, their roles and their keys.',
  },
  {
    path: '/audit',
    label: 'Audit log',
    icon: 'audit',
    group: 'Administration',
    ready: true,
    summary: 'Every change, sign-in and refusal, hash-chained so tampering shows.',
  },
  {
    path: '/status',
    label: 'Status',
    icon: 'status',
    group: 'Administration',
    ready: true,
    summary: 'Health, versions and the TLS fingerprint of this orchestrator.',
  },
];

/** Where signing in lands: the fleet, which every role can read. */
export const HOME_PATH = '/fleet';

/** Pages that belong to an area without being its top page: #/agents/{node_id} is part of Fleet. */
const SUB_PAGES: { prefix: string; area: string }[] = [{ prefix: '/agents/', area: '/fleet' }];

export function areaFor(path: string): Area | undefined {
  return AREAS.find((a) => a.path === path);
}

/** The area a path belongs to, sub-pages included (for the navigation highlight and sign-in redirects). */
export function owningArea(path: string): Area | undefined {
  const sub = SUB_PAGES.find((s) => path.startsWith(s.prefix) && path.length > s.prefix.length);
  return areaFor(sub ? sub.area : path);
}

/** The node id in #/agents/{node_id}, or undefined on any other page. */
export function agentPageNodeId(path: string): string | undefined {
  if (!path.startsWith('/agents/') || path.length <= '/agents/'.length) return undefined;
  try {
    return decodeURIComponent(path.slice('/agents/'.length));
  } catch {
    return undefined;
  }
}

export function areaGroups(): { group: string; areas: Area[] }[] {
  const groups: { group: string; areas: Area[] }[] = [];
  for (const area of AREAS) {
    const last = groups[groups.length - 1];
    if (last?.group === area.group) last.areas.push(area);
    else groups.push({ group: area.group, areas: [area] });
  }
  return groups;
}
