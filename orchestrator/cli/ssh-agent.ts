import net from 'node:net';
import { concatBytes, SSH_ED25519, SshReader, sshString, sshUint32 } from '../../common/openssh.js';

const SSH_AGENT_FAILURE = 5;
const SSH2_AGENTC_REQUEST_IDENTITIES = 11;
const SSH2_AGENT_IDENTITIES_ANSWER = 12;
const SSH2_AGENTC_SIGN_REQUEST = 13;
const SSH2_AGENT_SIGN_RESPONSE = 14;

export interface AgentIdentity {
  publicKey: Uint8Array;
  comment: string;
}

/** One request/response exchange with ssh-agent over its Unix socket (draft-miller-ssh-agent). */
function exchange(socketPath: string, message: Uint8Array): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    let buffer = Buffer.alloc(0);
    socket.setTimeout(10_000, () => socket.destroy(new Error('ssh-agent did not answer')));
    socket.on('connect', () => socket.write(concatBytes(sshUint32(message.length), message)));
    socket.on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (buffer.length < 4) return;
      const length = buffer.readUInt32BE(0);
      if (buffer.length < 4 + length) return;
      socket.end();
      resolve(new Uint8Array(buffer.subarray(4, 4 + length)));
    });
    socket.on('error', (err) => reject(new Error(`ssh-agent at ${socketPath}: ${err.message}`)));
  });
}

export async function listAgentKeys(socketPath: string): Promise<AgentIdentity[]> {
  const answer = await exchange(socketPath, new Uint8Array([SSH2_AGENTC_REQUEST_IDENTITIES]));
  if (answer[0] !== SSH2_AGENT_IDENTITIES_ANSWER) throw new Error('ssh-agent refused to list keys');
  const reader = new SshReader(answer.subarray(1));
  const count = reader.uint32();
  const out: AgentIdentity[] = [];
  for (let i = 0; i < count; i++) {
    const blob = new SshReader(reader.string());
    const comment = reader.text();
    if (blob.text() !== SSH_ED25519) continue;
    out.push({ publicKey: blob.string().slice(), comment });
  }
  return out;
}

/** Asks ssh-agent to sign `data` with the Ed25519 key `publicKey`; returns the 64-byte signature. */
export async function agentSign(socketPath: string, publicKey: Uint8Array, data: Uint8Array): Promise<Uint8Array> {
  const keyBlob = concatBytes(sshString(SSH_ED25519), sshString(publicKey));
  const request = concatBytes(new Uint8Array([SSH2_AGENTC_SIGN_REQUEST]), sshString(keyBlob), sshString(data), sshUint32(0));
  const answer = await exchange(socketPath, request);
  if (answer[0] === SSH_AGENT_FAILURE) throw new Error('ssh-agent refused to sign (is the key still loaded? confirm prompts?)');
  if (answer[0] !== SSH2_AGENT_SIGN_RESPONSE) throw new Error(`unexpected ssh-agent answer ${answer[0]}`);
  const sig = new SshReader(new SshReader(answer.subarray(1)).string());
  if (sig.text() !== SSH_ED25519) throw new Error('ssh-agent returned a non-Ed25519 signature');
  return sig.string().slice();
}
