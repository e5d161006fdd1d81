// Account lookups are cached for a few seconds (an unchanged apply reads the owner of every
// file); a change to accounts, by a user/group resource or a script, must be seen at once.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { after, describe, it } from 'node:test';
import { shadowTool } from '../../../agent/providers/accounts.js';
import { ProviderContext } from '../../../agent/providers/context.js';
import { getent, forgetAccounts } from '../../../agent/providers/fs-util.js';
import { scriptProvider } from '../../../agent/providers/script.js';
import { isRoot, tempRoot } from './support.js';

const name = `corral-c${randomBytes(3).toString('hex')}`;

describe('account entry cache', { skip: isRoot ? false : 'useradd needs root' }, () => {
  const t = tempRoot();
  after(() => {
    try {
      execFileSync('userdel', [name], { stdio: 'ignore' });
    } catch {
      // already gone
    }
    t.cleanup();
  });

  it('sees a user added and removed by the shadow tools and by a script at once', async () => {
    // The machine's own account database: the cache only serves lookups outside a root prefix.
    const ctx = new ProviderContext({ root: '/', logger: t.ctx.logger });
    forgetAccounts();
    assert.equal(await getent('passwd', name), undefined);
    await shadowTool(ctx, 'useradd', ['-M', '-r', '--', name]);
    assert.equal((await getent('passwd', name))?.[0], name, 'a miss is not cached');
    const cached = await getent('passwd', name);
    assert.equal(cached?.[0], name);
    await shadowTool(ctx, 'userdel', ['--', name]);
    assert.equal(await getent('passwd', name), undefined, 'userdel through the provider tools forgets the entry');

    execFileSync('useradd', ['-M', '-r', '--', name]);
    assert.equal((await getent('passwd', name))?.[0], name);
    const props = { run: `userdel ${name}` };
    await scriptProvider.converge(props, await scriptProvider.read(props, ctx), ctx);
    assert.equal(await getent('passwd', name), undefined, 'a script run forgets cached entries');
  });
});
